// Trust & forgetting. Every Fact index is paid for on each write and each excision, so only
// what no existing index serves: the TTL sweep (range on expires_at within a tenant).
// (Capacity counts use fact_slot's (tenant, scope) prefix; alerts filter audit by action.)
CREATE INDEX fact_tenant_expires IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.expires_at);
CREATE INDEX audit_tenant_action IF NOT EXISTS FOR (a:AuditEvent) ON (a.tenant, a.action);
