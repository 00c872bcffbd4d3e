// params: tenant, contributors, limit, ends
// returns: doomed, doomed_tiers, merged, chained, premises, kept_slots, shared, shared_inferred, worded, episodes, predicates
// The next facts (about $limit) citing these contributors' episodes, split as the reads
// hide them: `doomed` when every episode behind them is a forgotten contributor's
// (forget/_hidden_fact), `shared` otherwise; `episodes` the contributors' episodes they cite.
// A batch leaves none of them citing those episodes (excised, or their evidence unlinked), so
// the next call finds the next ones: the job resumes from the graph, with no cursor to lose.
#include forget/_hidden
#include forget/_next_facts
WITH DISTINCT hidden, f LIMIT $limit
// With the rest of their supersession chains: a chain is rewritten in one batch, so no
// version of it is reinstated only to be excised by the next.
CALL (f) {
  MATCH (f)-[:SUPERSEDES*0..]-(g:Fact)
  RETURN g
}
WITH DISTINCT hidden, g AS f
MATCH (f)-[d:DERIVED_FROM]->(x:Episode)
WHERE x.contributor IN $contributors
WITH hidden, f, collect(x.id) AS eps,
     count(CASE WHEN d.at <= f.recorded_at THEN 1 END) > 0 AS wrote
WITH hidden, f, eps, wrote,
#include forget/_hidden_fact(f)
     AS only
// What an excised version leaves behind decides the work it costs: most leave no surviving
// version in their slot (a slot of theirs alone, or a chain excised whole) and nothing
// concluded from them, so deleting them with their segments is all there is; slots that
// keep a version others support get their timeline rebuilt, and the conclusions drawn from
// a premise get flagged.
WITH f, eps, wrote, only,
     only AND EXISTS { (:Fact)-[:DEPENDS_ON]->(f) } AS premise,
     CASE WHEN NOT only THEN false
          ELSE EXISTS { MATCH (o:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                                       predicate: f.predicate})
                        WHERE o <> f AND NOT (
#include forget/_hidden_fact(o)
                        ) } END AS kept
RETURN collect(CASE WHEN only THEN f.id END) AS doomed,
       collect(CASE WHEN only THEN f.tier END) AS doomed_tiers,
       // Those an entity merge copied (forget.merge_copies): read here, before any write.
       collect(CASE WHEN only AND f.merged_into IS NOT NULL THEN f.id END) AS merged,
       collect(CASE WHEN only AND EXISTS { (f)-[:SUPERSEDES]-() } THEN f.id END) AS chained,
       collect(CASE WHEN premise THEN f.id END) AS premises,
       collect(DISTINCT CASE WHEN kept THEN {scope: f.scope, subject: f.subject,
                                             predicate: f.predicate} END) AS kept_slots,
       collect(CASE WHEN NOT only THEN f.id END) AS shared,
       collect(CASE WHEN NOT only AND f.tier = 'inferred' THEN f.id END) AS shared_inferred,
       collect(CASE WHEN NOT only AND wrote THEN {
         id: f.id, subject: f.subject_name, predicate: f.predicate, object: f.object,
         text: f.text} END) AS worded,
       collect(eps) AS episodes,
       collect(DISTINCT CASE WHEN only THEN f.predicate END) AS predicates
