// params: tenant, ids
// returns: scope, subject, predicate
// The slots these versions belong to (a change names the versions it touched).
MATCH (f:Fact)
WHERE f.id IN $ids AND f.tenant = $tenant
RETURN DISTINCT f.scope AS scope, f.subject AS subject, f.predicate AS predicate
