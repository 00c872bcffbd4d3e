// params: tenant, ids
// returns: id, confidence, status, tier_cap, evidence
// Versions about to be corroborated, with their evidence as it stands before the batch: the
// audit log gives each item the confidence change it caused (services/facts/confidence_steps.py).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
RETURN f.id AS id, f.confidence AS confidence, f.status AS status, f.tier_cap AS tier_cap,
       [x IN collect(CASE WHEN e IS NULL THEN null
                          ELSE {episode_id: e.id, user_id: e.user_id, session_id: e.session_id,
                                weight: d.weight} END)
        WHERE x IS NOT NULL] AS evidence
