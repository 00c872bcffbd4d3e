// What a session token did for a user is labelled "<role>:<key> for <user>" at the end of the
// actor fields: a forget's finish finds those marks by suffix (forget/acted_for_marks,
// forget/redact_acted_for) under every lock of the tenant, and without these text indexes
// (which serve ENDS WITH) it scanned every fact, memo and audit event of the tenant.
CREATE TEXT INDEX fact_created_by_text IF NOT EXISTS FOR (f:Fact) ON (f.created_by);
CREATE TEXT INDEX fact_retracted_by_text IF NOT EXISTS FOR (f:Fact) ON (f.retracted_by);
CREATE TEXT INDEX memo_closed_by_text IF NOT EXISTS FOR (m:Memo) ON (m.closed_by);
CREATE TEXT INDEX audit_actor_text IF NOT EXISTS FOR (a:AuditEvent) ON (a.actor);
