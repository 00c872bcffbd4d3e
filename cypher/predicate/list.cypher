// params: tenant, scopes
// returns: name, cardinality
// To a reader bound to $scopes (a session token) only the predicates a fact in them uses:
// a name a user introduced is their words (null: an API key, every predicate of the tenant).
// While a forget's purge runs, a name only the forgotten contributors' facts used and nobody
// defined is theirs too (forget/_hidden_predicate), also once their facts are deleted.
#include forget/_hidden
MATCH (p:Predicate {tenant: $tenant})
// `name IS NOT NULL` (always true) lets the (tenant, name) index seek the tenant's names: a
// composite index is used only with a predicate on each of its keys, and without one the
// planner scans every tenant's predicates.
WHERE p.name IS NOT NULL AND ($scopes IS NULL OR EXISTS {
  UNWIND $scopes AS sc
  MATCH (f:Fact {tenant: $tenant, scope: sc, predicate: p.name})
  RETURN f
})
  AND NOT
#include forget/_hidden_predicate(p)
RETURN p.name AS name, p.cardinality AS cardinality
ORDER BY p.name
