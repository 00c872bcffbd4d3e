// params: tenant, fact_ids, contributors
// returns: unlinked
// The contributors' support is withdrawn from facts others also support, before their
// confidence is recomputed from what is left.
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})-[d:DERIVED_FROM]->(e:Episode)
WHERE f.tenant = $tenant AND e.contributor IN $contributors
DELETE d
RETURN count(*) AS unlinked
