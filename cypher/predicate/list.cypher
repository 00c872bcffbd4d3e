// params: tenant
// returns: name, cardinality
MATCH (p:Predicate {tenant: $tenant})
RETURN p.name AS name, p.cardinality AS cardinality
ORDER BY p.name
