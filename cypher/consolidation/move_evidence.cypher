// params: tenant, moves, now
// returns: id, moved
// A merged duplicate's evidence is copied onto the version that stays (the strongest weight
// per episode wins); the duplicate keeps its own edges, so its history still cites them.
UNWIND $moves AS m
MATCH (dup:Fact {id: m.from}), (keep:Fact {id: m.to})
WHERE dup.tenant = $tenant AND keep.tenant = $tenant
MATCH (dup)-[d:DERIVED_FROM]->(e:Episode)
MERGE (keep)-[k:DERIVED_FROM]->(e)
ON CREATE SET k = properties(d), k.moved_from = dup.id, k.moved_at = $now
ON MATCH SET k.weight = CASE WHEN coalesce(d.weight, 0.0) > coalesce(k.weight, 0.0)
                             THEN d.weight ELSE k.weight END
RETURN keep.id AS id, count(d) AS moved
