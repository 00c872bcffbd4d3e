// params: tenant, actor, target, action, from, to, after_at, after_id, limit
// returns: event
MATCH (a:AuditEvent)
WHERE a.tenant = $tenant
  AND ($actor IS NULL OR a.actor = $actor OR a.actor_type = $actor)
  AND ($target IS NULL OR a.target_id = $target)
  AND ($action IS NULL OR a.action = $action)
  AND ($from IS NULL OR a.at >= $from)
  AND ($to IS NULL OR a.at < $to)
  AND ($after_at IS NULL OR a.at < $after_at OR (a.at = $after_at AND a.id < $after_id))
RETURN a {.*} AS event
ORDER BY a.at DESC, a.id DESC
LIMIT $limit
