// params: tenant, receipt
// returns: id
// The purge still running for this user's receipt, if any: a second forget joins it.
MATCH (j:ForgetJob {tenant: $tenant, receipt: $receipt})
WHERE j.state <> 'done'
RETURN j.id AS id
ORDER BY j.created_at
LIMIT 1
