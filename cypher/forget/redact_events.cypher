// params: tenant, ids, now
// returns: redacted
// Blanks the content of these audit events (who, when and which action stay), as
// audit.redact does for events about excised targets.
UNWIND $ids AS id
MATCH (a:AuditEvent {id: id})
WHERE a.tenant = $tenant
SET a.before = null, a.after = null, a.reason = null, a.redacted_at = $now
RETURN count(a) AS redacted
