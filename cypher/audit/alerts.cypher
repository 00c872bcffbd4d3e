// params: tenant, actions, from, to, limit
// returns: event
// Alert-worthy audit events (tier conflicts), newest first, in [from, to).
#include forget/_hidden
MATCH (a:AuditEvent)
WHERE a.tenant = $tenant AND a.action IN $actions
  AND ($from IS NULL OR a.at >= $from)
  AND ($to IS NULL OR a.at < $to)
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
