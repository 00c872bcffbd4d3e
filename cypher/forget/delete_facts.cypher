// params: tenant, ids
// returns: deleted, entities
// Hard delete (DETACH also drops the vector and full-text index entries): excision, not a
// status, so no read at any asOf can find them. Entities that only these facts named go too:
// their names would still tell what was said. (Predicates are tenant vocabulary and stay.)
// The segments they won go with them: a slot left with no version has no timeline, and one
// that keeps versions is rebuilt afterwards (services/forget/purge.py).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
CALL (f) {
  OPTIONAL MATCH (s:Segment)-[:WINS]->(f)
  DETACH DELETE s
}
OPTIONAL MATCH (f)-[:ABOUT|OBJECT]->(en:Entity)
WITH collect(DISTINCT f) AS facts, collect(DISTINCT en) AS ents
FOREACH (f IN facts | DETACH DELETE f)
WITH size(facts) AS deleted, ents
CALL (ents) {
  UNWIND ents AS en
  WITH en WHERE NOT EXISTS { (en)--() }
  DELETE en
  RETURN count(*) AS entities
}
RETURN deleted, entities
