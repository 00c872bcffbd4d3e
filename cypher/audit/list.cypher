// params: tenant, actor, target, action, from, to, after_at, after_id, limit
// returns: event
#include forget/_hidden
MATCH (a:AuditEvent)
// `at IS NOT NULL` (always true) seeks the (tenant, at) index: without a predicate on each of
// its keys the planner scans every tenant's events.
WHERE a.tenant = $tenant AND a.at IS NOT NULL
  AND ($actor IS NULL OR a.actor = $actor OR a.actor_type = $actor)
  AND ($target IS NULL OR a.target_id = $target)
  AND ($action IS NULL OR a.action = $action)
  AND ($from IS NULL OR a.at >= $from)
  AND ($to IS NULL OR a.at < $to)
  AND ($after_at IS NULL OR a.at < $after_at OR (a.at = $after_at AND a.id < $after_id))
// Events about what only forgotten contributors gave keep who, when and what action, not
// their content, from the forget on (the purge then blanks it for good: audit.redact).
WITH a, hidden ORDER BY a.at DESC, a.id DESC LIMIT $limit
WITH a,
#include forget/_hidden_audit(a)
     AS blank
// A predicate's event names it by its target id: the stand-in the purge leaves
// (forget/delete_predicates).
RETURN CASE WHEN blank THEN a {.*, before: null, after: null, reason: null,
                               target_id: CASE WHEN a.target_type = 'predicate'
                                               THEN 'forgotten-predicate' ELSE a.target_id END}
            ELSE a {.*} END AS event
ORDER BY a.at DESC, a.id DESC
