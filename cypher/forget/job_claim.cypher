// params: tenant, id, owner, now, until
// returns: claimed
// A purge runs under a lease held in the graph: one runner at a time across every process;
// a runner that died leaves its lease to expire and the next claim resumes the job.
MATCH (j:ForgetJob {id: $id})
WHERE j.tenant = $tenant AND j.state <> 'done'
  AND (j.lease_owner IS NULL OR j.lease_owner = $owner OR j.lease_until < $now)
SET j.lease_owner = $owner, j.lease_until = $until
RETURN j.id AS claimed
