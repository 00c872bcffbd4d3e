// params: now
// returns: tenant, id
// Purges of any tenant that no runner holds (never started, or their runner died).
MATCH (j:ForgetJob)
WHERE j.state = 'running' AND (j.lease_owner IS NULL OR j.lease_until < $now)
RETURN j.tenant AS tenant, j.id AS id
ORDER BY j.created_at
LIMIT 100
