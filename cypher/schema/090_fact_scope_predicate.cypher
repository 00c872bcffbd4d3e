// Whether a scope holds any version of a predicate is one seek per scope: what a session
// token is told of the tenant's predicates (predicate/list) is those its scopes use.
CREATE INDEX fact_scope_predicate IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope, f.predicate);
