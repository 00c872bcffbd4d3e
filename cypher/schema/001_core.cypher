// Core graph model: uniqueness per tenant, and the lookups the hot paths need.
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.tenant, e.key) IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE;
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT user_key IF NOT EXISTS FOR (u:User) REQUIRE (u.tenant, u.id) IS UNIQUE;
CREATE CONSTRAINT audit_id IF NOT EXISTS FOR (a:AuditEvent) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT apikey_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE;
CREATE CONSTRAINT idem_key IF NOT EXISTS FOR (i:IdempotencyKey) REQUIRE (i.tenant, i.key) IS UNIQUE;
CREATE CONSTRAINT procedure_id IF NOT EXISTS FOR (p:Procedure) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT predicate_key IF NOT EXISTS FOR (p:Predicate) REQUIRE (p.tenant, p.name) IS UNIQUE;
// Current-version lookup by (tenant, scope, subject, predicate).
CREATE INDEX fact_slot IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope, f.subject, f.predicate);
CREATE INDEX fact_tenant_status IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.status);
CREATE INDEX fact_tenant_recorded IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.recorded_at);
CREATE INDEX episode_scope IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.scope);
CREATE INDEX episode_user IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.user_id);
CREATE INDEX audit_tenant_at IF NOT EXISTS FOR (a:AuditEvent) ON (a.tenant, a.at);
CREATE INDEX audit_target IF NOT EXISTS FOR (a:AuditEvent) ON (a.tenant, a.target_id);
CREATE INDEX procedure_intent IF NOT EXISTS FOR (p:Procedure) ON (p.tenant, p.intent, p.role);
