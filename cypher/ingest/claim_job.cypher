// params: owner, token, now, lease_until, tenants, full
// returns: job
// The oldest job that is free: queued and due, or running under a lease that expired (its
// worker crashed or lost the database). available_at is the due time of a queued job and the
// lease expiry of a running one, so both are one indexed comparison. A worker may serve only
// some tenants ($tenants; null: all), and passes over those at their share of its slots
// ($full: services/ingest/worker.py). The queue lock serialises claimers, so two never pick
// the same job; the job's own write lock, taken before its state is read again, keeps a claim
// from overwriting a completion or renewal that committed meanwhile (those take only the
// job's lock: update_job, complete_job). $token names this claim: every later write to the
// job compares it, so a worker that lost the job (even to itself) changes nothing.
// The job comes back with credential_revoked: whether the API key (or the session token, or
// the key that minted it) that submitted it was revoked since; the worker then does not run
// it, since a revoked credential's queued work stops with it. A job naming neither (from
// before keys were recorded on jobs) counts as not revoked. Read here rather than by a read
// of its own after the claim: a round trip fewer on the path of every session.
MERGE (q:IngestQueue {id: 'ingest'})
ON CREATE SET q.caption = 'ingest queue'
SET q.seq = coalesce(q.seq, 0) + 1
WITH q
MATCH (j:IngestJob)
WHERE j.status IN ['queued', 'running'] AND j.available_at <= $now
  AND ($tenants IS NULL OR j.tenant IN $tenants) AND NOT j.tenant IN $full
WITH j ORDER BY j.available_at, j.id LIMIT 1
SET j._lock = true
WITH j, j.status IN ['queued', 'running'] AND j.available_at <= $now AS free
REMOVE j._lock
WITH j WHERE free
SET j.status = 'running', j.lease_owner = $owner, j.lease_token = $token,
    j.available_at = $lease_until, j.attempts = j.attempts + 1, j.claimed_at = $now
WITH j
CALL (j) {
  OPTIONAL MATCH (k:ApiKey {id: j.principal_key})
  WHERE k.tenant = j.tenant
  OPTIONAL MATCH (t:SessionToken {id: j.principal_key})
  WHERE t.tenant = j.tenant
  OPTIONAL MATCH (p:ApiKey {id: t.parent_id})
  WHERE p.tenant = j.tenant
  RETURN k.revoked_at IS NOT NULL OR t.revoked_at IS NOT NULL OR p.revoked_at IS NOT NULL
         AS revoked
}
RETURN j {.*, credential_revoked: revoked} AS job
