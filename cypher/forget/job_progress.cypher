// params: tenant, id, owner, phase, counts, predicates, now, until
// returns: id
// One batch's progress, written in the batch's own transaction (a resumed job never counts a
// batch twice); only by the lease holder, whose lease it renews.
MATCH (j:ForgetJob {id: $id})
WHERE j.tenant = $tenant AND j.lease_owner = $owner AND j.state <> 'done'
SET j.predicates = coalesce(j.predicates, [])
                   + [p IN $predicates WHERE NOT p IN coalesce(j.predicates, [])],
    j.phase = $phase, j.counts = $counts, j.batches = j.batches + 1, j.updated_at = $now,
    j.lease_until = $until
RETURN j.id AS id
