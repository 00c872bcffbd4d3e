// Write locks per scope (cypher/lock/): one node per (tenant, scope), created by the first
// write of the scope. Scopes that already hold memories get theirs now, so a change that
// locks every scope of a tenant (forgetting a contributor) also waits for their writers.
CREATE CONSTRAINT scope_lock IF NOT EXISTS FOR (l:ScopeLock) REQUIRE (l.tenant, l.scope) IS UNIQUE;
MATCH (e:Episode) WITH DISTINCT e.tenant AS tenant, e.scope AS scope WHERE tenant IS NOT NULL AND scope IS NOT NULL MERGE (l:ScopeLock {tenant: tenant, scope: scope}) ON CREATE SET l.caption = 'lock ' + scope, l.seq = 0;
MATCH (f:Fact) WITH DISTINCT f.tenant AS tenant, f.scope AS scope WHERE tenant IS NOT NULL AND scope IS NOT NULL MERGE (l:ScopeLock {tenant: tenant, scope: scope}) ON CREATE SET l.caption = 'lock ' + scope, l.seq = 0;
