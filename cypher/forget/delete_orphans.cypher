// params: tenant, keys, predicates
// returns: entities, predicates
// Entity names and predicate names only the excised facts used would still tell about them.
CALL () {
  UNWIND $keys AS key
  MATCH (en:Entity {tenant: $tenant, key: key})
  WHERE NOT EXISTS { (en)--() }
  DELETE en
  RETURN count(en) AS entities
}
CALL () {
  UNWIND $predicates AS name
  MATCH (p:Predicate {tenant: $tenant, name: name})
  WHERE NOT EXISTS { MATCH (f:Fact {tenant: $tenant, predicate: name}) }
  DETACH DELETE p
  RETURN count(p) AS predicates
}
RETURN entities, predicates
