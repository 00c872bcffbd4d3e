// Trust & forgetting: the lookups the TTL sweep, alerts, capacity and excision need.
// TTL sweep per tenant (range on expires_at after tenant equality) and across tenants (CLI).
CREATE INDEX fact_tenant_expires IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.expires_at);
CREATE INDEX fact_expires IF NOT EXISTS FOR (f:Fact) ON (f.expires_at);
// Per-user capacity counts a user scope's live facts on every write.
CREATE INDEX fact_tenant_scope IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope);
// Forgetting drops predicates no fact uses any more.
CREATE INDEX fact_tenant_predicate IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.predicate);
// Alerts: audit events by action.
CREATE INDEX audit_tenant_action IF NOT EXISTS FOR (a:AuditEvent) ON (a.tenant, a.action);
