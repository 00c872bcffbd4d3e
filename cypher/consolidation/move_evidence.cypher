// params: tenant, moves, now
// returns: id, moved
// A merged duplicate's evidence is copied onto the version that stays, linked then (`at` is
// the run's moment, so a read as of an earlier moment counts only the evidence the version
// had: held_at); an episode that already backs it keeps its edge as it was (raising its
// weight would change the confidence read as of the past). The duplicate keeps its own
// edges, so its history still cites them.
UNWIND $moves AS m
MATCH (dup:Fact {id: m.from}), (keep:Fact {id: m.to})
WHERE dup.tenant = $tenant AND keep.tenant = $tenant
MATCH (dup)-[d:DERIVED_FROM]->(e:Episode)
MERGE (keep)-[k:DERIVED_FROM]->(e)
ON CREATE SET k = properties(d), k.at = $now, k.moved_from = dup.id, k.moved_at = $now
RETURN keep.id AS id, count(d) AS moved
