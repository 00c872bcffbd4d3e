// params: tenant, id, token, changes
// returns: id
// A checkpoint, lease renewal, release or completion, applied only while the caller's claim
// ($token) still holds the job: a worker whose lease expired and was taken over changes
// nothing. No queue lock: the job's own write lock is taken before its lease is read, so a
// claim or completion that committed meanwhile is seen instead of overwritten.
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant
SET j._lock = true
WITH j, j.lease_token = $token AND j.status = 'running' AS mine
REMOVE j._lock
WITH j WHERE mine
SET j += $changes
RETURN j.id AS id
