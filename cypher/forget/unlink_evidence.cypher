// params: tenant, fact_ids, episode_ids
// returns: unlinked
// The contributor's support is withdrawn from facts others also support, before their
// confidence is recomputed from what is left.
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})-[d:DERIVED_FROM]->(e:Episode)
WHERE f.tenant = $tenant AND e.id IN $episode_ids
DELETE d
RETURN count(*) AS unlinked
