// params: after, tenant, limit
// returns: id, tenant, summary, digest
// The next episodes after id `after` in id order (the unique id's index walks them in order),
// of one tenant or (tenant null) of the store: the speaker backfill's batch.
MATCH (e:Episode)
WHERE e.id > $after AND ($tenant IS NULL OR e.tenant = $tenant)
RETURN e.id AS id, e.tenant AS tenant, e.summary AS summary, coalesce(e.digest, false) AS digest
ORDER BY id
LIMIT $limit
