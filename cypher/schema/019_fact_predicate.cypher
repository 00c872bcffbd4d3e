// Whether any version of a tenant still uses a predicate (a forget removes the predicates
// only the forgotten contributor's facts used: services/forget/service.py) is one seek.
CREATE INDEX fact_tenant_predicate IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.predicate);
