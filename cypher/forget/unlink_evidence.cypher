// params: tenant, episode_ids
// returns: unlinked
// The contributor's support is withdrawn from every fact citing their episodes (from facts
// others also support before their confidence is recomputed; the rest are deleted anyway).
// Walks from the episodes, so the cost is linear in their evidence edges.
UNWIND $episode_ids AS eid
MATCH (e:Episode {id: eid})<-[d:DERIVED_FROM]-(:Fact)
WHERE e.tenant = $tenant
DELETE d
RETURN count(*) AS unlinked
