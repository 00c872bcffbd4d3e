// params: tenant, ids
// returns: fact_id, episode_id, turns, extractor
// The turns each fact's evidence rests on, per episode, as recorded by ingestion.
UNWIND $ids AS id
MATCH (f:Fact {id: id})-[d:DERIVED_FROM]->(e:Episode)
WHERE f.tenant = $tenant AND d.turns IS NOT NULL
RETURN f.id AS fact_id, e.id AS episode_id, d.turns AS turns, d.extractor AS extractor
