// params: owner, now, lease_until, tenants
// returns: job
// The oldest job that is free: queued and due, or running under a lease that expired (its
// worker crashed or lost the database). available_at is the due time of a queued job and the
// lease expiry of a running one, so both are one indexed comparison. A worker may serve only
// some tenants ($tenants; null: all).
MATCH (j:IngestJob)
WHERE j.status IN ['queued', 'running'] AND j.available_at <= $now
  AND ($tenants IS NULL OR j.tenant IN $tenants)
WITH j ORDER BY j.available_at, j.id LIMIT 1
SET j.status = 'running', j.lease_owner = $owner, j.available_at = $lease_until,
    j.attempts = j.attempts + 1, j.claimed_at = $now
RETURN j {.*} AS job
