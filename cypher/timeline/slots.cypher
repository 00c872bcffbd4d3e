// params: tenant
// returns: scope, subject, predicate
// Every slot of a tenant, in key order (a walk over every slot: one scan, then batches).
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.scope IS NOT NULL  // seeks (tenant, scope), not every fact
WITH DISTINCT f.scope AS scope, f.subject AS subject, f.predicate AS predicate
RETURN scope, subject, predicate
ORDER BY scope, subject, predicate
