// params: tenant, actions, from, to
// returns: action, actor, count, first_at, last_at
// How often each actor tripped each alert in [from, to): who keeps trying to override policy.
MATCH (a:AuditEvent)
WHERE a.tenant = $tenant AND a.action IN $actions
  AND ($from IS NULL OR a.at >= $from)
  AND ($to IS NULL OR a.at < $to)
RETURN a.action AS action, a.actor AS actor, count(*) AS count, min(a.at) AS first_at,
       max(a.at) AS last_at
ORDER BY count DESC, action, actor
