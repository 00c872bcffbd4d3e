// params: tenant, rows, now
// returns: name, cardinality
// A row of definePredicates names who defined it (`defined_by`, and `defined_for`, the user a
// session token acted for): a registration someone chose to make is theirs, not the first
// fact's, so a forget of a user whose facts alone used it keeps it (forget/delete_predicates).
// A row a fact's write registers on the way carries neither.
UNWIND $rows AS row
MERGE (p:Predicate {tenant: $tenant, name: row.name})
ON CREATE SET p.cardinality = row.cardinality, p.created_at = $now, p.caption = row.name,
              p.defined_by = row.defined_by, p.defined_for = row.defined_for
RETURN p.name AS name, p.cardinality AS cardinality
