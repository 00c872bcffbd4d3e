// params: tenant, keys
// returns: deleted
// Entities nothing names any more go too: their names would still tell what was said.
// (Predicates are tenant vocabulary, not content, and stay.)
UNWIND $keys AS key
MATCH (en:Entity {tenant: $tenant, key: key})
WHERE NOT EXISTS { (en)--() }
DELETE en
RETURN count(*) AS deleted
