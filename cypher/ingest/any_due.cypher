// params: now, tenants, full
// returns: id
// Whether any job is free, without the queue lock: idle workers poll with this read, and
// take the lock (a write) only when there is something to claim.
MATCH (j:IngestJob)
WHERE j.status IN ['queued', 'running'] AND j.available_at <= $now
  AND ($tenants IS NULL OR j.tenant IN $tenants) AND NOT j.tenant IN $full
RETURN j.id AS id
LIMIT 1
