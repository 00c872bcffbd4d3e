// params: tenant, ids, scope, limit, diff
// returns: run, changes
// Runs newest first (or the named ones), each with its diff in the order it was made; with
// `diff` false, the runs alone (changes null): a caller that does not show the diff does not
// read a large run's tens of thousands of entries.
// While a forget's purge runs, a change about a memory the reads hide (forget/_hidden*: a
// fact, an episode or digest, a procedure, an entity only the forgotten contributor gave)
// keeps its step, action and target but not the before/after/reason quoting it, as the purge
// leaves it when it finishes (forget/consolidation_trail).
#include forget/_hidden
MATCH (r:ConsolidationRun {tenant: $tenant})
WHERE r.id IS NOT NULL  // seeks the (tenant, id) index, not every tenant's runs
  AND ($ids IS NULL OR r.id IN $ids) AND ($scope IS NULL OR $scope IN r.scopes)
WITH r, hidden ORDER BY r.started_at DESC, r.id DESC LIMIT $limit
CALL (r, hidden) {
  OPTIONAL MATCH (r)-[:CHANGED]->(x:ConsolidationChange)
  WHERE $diff
  WITH x, hidden ORDER BY x.seq
  CALL (x, hidden) {
    OPTIONAL MATCH (f:Fact {id: x.target_id})
    WHERE f.tenant = $tenant AND size(hidden) > 0
    OPTIONAL MATCH (e:Episode {id: x.target_id})
    WHERE e.tenant = $tenant AND size(hidden) > 0
    OPTIONAL MATCH (p:Procedure {id: x.target_id})
    WHERE p.tenant = $tenant AND size(hidden) > 0
    OPTIONAL MATCH (n:Entity {id: x.target_id})
    WHERE n.tenant = $tenant AND size(hidden) > 0
    RETURN (f IS NOT NULL AND
#include forget/_hidden_fact(f)
           ) OR (e IS NOT NULL AND
#include forget/_hidden_episode(e)
           ) OR (p IS NOT NULL AND
#include forget/_hidden_procedure(p)
           ) OR (n IS NOT NULL AND
#include forget/_hidden_entity(n)
           ) AS concealed
  }
  RETURN collect(CASE WHEN concealed THEN x {.*, before: null, after: null, reason: null}
                      ELSE x {.*} END) AS changes
}
RETURN r {.*} AS run, CASE WHEN $diff THEN changes END AS changes
ORDER BY r.started_at DESC, r.id DESC
