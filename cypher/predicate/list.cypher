// params: tenant, scopes
// returns: name, cardinality
// To a reader bound to $scopes (a session token) only the predicates a fact in them uses:
// a name a user introduced is their words (null: an API key, every predicate of the tenant).
MATCH (p:Predicate {tenant: $tenant})
WHERE $scopes IS NULL OR EXISTS {
  UNWIND $scopes AS sc
  MATCH (f:Fact {tenant: $tenant, scope: sc, predicate: p.name})
  RETURN f
}
RETURN p.name AS name, p.cardinality AS cardinality
ORDER BY p.name
