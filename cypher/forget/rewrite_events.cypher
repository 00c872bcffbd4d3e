// params: tenant, rows, now
// returns: rewritten
// Audit events of surviving facts, with the excised versions they named replaced (who, when
// and which action are untouched); marked redacted.
UNWIND $rows AS row
MATCH (a:AuditEvent {id: row.id})
WHERE a.tenant = $tenant
SET a.before = row.before, a.after = row.after, a.reason = row.reason, a.redacted_at = $now
RETURN count(a) AS rewritten
