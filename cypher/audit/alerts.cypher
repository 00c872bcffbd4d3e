// params: tenant, actions, from, to, limit
// returns: event
// Alert-worthy audit events (tier conflicts), newest first, in [from, to).
MATCH (a:AuditEvent)
WHERE a.tenant = $tenant AND a.action IN $actions
  AND ($from IS NULL OR a.at >= $from)
  AND ($to IS NULL OR a.at < $to)
RETURN a {.*} AS event
ORDER BY a.at DESC, a.id DESC
LIMIT $limit
