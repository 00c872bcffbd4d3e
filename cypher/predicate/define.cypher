// params: tenant, rows, now
// returns: name, cardinality
UNWIND $rows AS row
MERGE (p:Predicate {tenant: $tenant, name: row.name})
ON CREATE SET p.cardinality = row.cardinality, p.created_at = $now, p.caption = row.name
RETURN p.name AS name, p.cardinality AS cardinality
