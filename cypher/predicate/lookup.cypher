// params: tenant, names
// returns: name, cardinality
UNWIND $names AS name
MATCH (p:Predicate {tenant: $tenant, name: name})
RETURN p.name AS name, p.cardinality AS cardinality
