// params: tenant, from, to
// returns: at, actor, action, target_type, target_id, reason, confidence_delta
// What changed in a time window, from the audit log.
// In Browser: :param tenant => 'demo'  then  :param from => datetime('2026-01-01T00:00:00Z')
//   and  :param to => datetime()
MATCH (a:AuditEvent {tenant: $tenant})
WHERE a.at >= $from AND a.at < $to
RETURN a.at AS at, a.actor AS actor, a.action AS action, a.target_type AS target_type,
       a.target_id AS target_id, a.reason AS reason, a.confidence_delta AS confidence_delta
ORDER BY a.at DESC
LIMIT 500
