// params: tenant, fact_ids, episodes
// returns: unlinked
// The contributor's support is withdrawn from facts others also support, before their
// confidence is recomputed from what is left. $episodes is a map keyed by episode id, so
// membership is a lookup, not a scan of a list (cost linear in the evidence edges).
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})-[d:DERIVED_FROM]->(e:Episode)
WHERE f.tenant = $tenant AND $episodes[e.id] IS NOT NULL
DELETE d
RETURN count(*) AS unlinked
