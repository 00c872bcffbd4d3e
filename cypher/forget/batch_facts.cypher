// params: tenant, slots, contributors
// returns: doomed, doomed_tiers, chained, shared, shared_inferred, worded, episodes
// The versions of these slots citing the contributors' episodes, split as forget.facts does:
// `doomed` when every episode behind them is a forgotten contributor's (forget/_hidden_fact,
// the rule the reads hide by), `shared` otherwise; `episodes` the contributors' episodes they
// cite (lists, one per version).
#include forget/_hidden
UNWIND $slots AS slot
MATCH (f:Fact {tenant: $tenant, subject: slot.subject, predicate: slot.predicate})
WHERE f.scope = slot.scope
MATCH (f)-[d:DERIVED_FROM]->(x:Episode)
WHERE x.contributor IN $contributors
WITH hidden, f, collect(x.id) AS eps, count(CASE WHEN d.at <= f.recorded_at THEN 1 END) > 0 AS wrote
WITH f, eps, wrote,
#include forget/_hidden_fact(f)
     AS only
RETURN collect(CASE WHEN only THEN f.id END) AS doomed,
       collect(CASE WHEN only THEN f.tier END) AS doomed_tiers,
       collect(CASE WHEN only AND EXISTS { (f)-[:SUPERSEDES]-() } THEN f.id END) AS chained,
       collect(CASE WHEN NOT only THEN f.id END) AS shared,
       collect(CASE WHEN NOT only AND f.tier = 'inferred' THEN f.id END) AS shared_inferred,
       collect(CASE WHEN NOT only AND wrote THEN {
         id: f.id, subject: f.subject_name, predicate: f.predicate, object: f.object,
         text: f.text} END) AS worded,
       collect(eps) AS episodes
