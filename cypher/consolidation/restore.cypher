// params: tenant, run_id
// returns: id, scope, subject, predicate
// Rollback: every memory the run changed gets back exactly the properties and evidence it
// had before the run (the caller rebuilds the slots' timelines from the restored versions).
// Its vector and its retrieval bookkeeping (usage, not belief) are left as they are now.
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
WHERE s.tenant = $tenant
MATCH (f:Fact {id: s.snapshot_of})
WHERE f.tenant = $tenant
WITH f, s, f.embedding AS vector, f.retrieval_count AS served, f.last_retrieved_at AS last
SET f = properties(s)
SET f.embedding = vector, f.retrieval_count = served, f.last_retrieved_at = last
REMOVE f.snapshot_run, f.snapshot_of
WITH f, s
CALL (f) {
  OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(:Episode)
  DELETE d
  RETURN count(*) AS dropped
}
CALL (f, s) {
  OPTIONAL MATCH (s)-[h:HAD_EVIDENCE]->(e:Episode)
  FOREACH (_ IN CASE WHEN h IS NULL THEN [] ELSE [1] END |
    CREATE (f)-[d:DERIVED_FROM]->(e) SET d = properties(h))
  RETURN count(*) AS restored
}
// A fact an entity merge moved is about its own subject again.
CALL (f) {
  OPTIONAL MATCH (f)-[a:ABOUT]->(x:Entity)
  WHERE x.key <> f.subject
  DELETE a
  RETURN count(*) AS moved
}
CALL (f) {
  MATCH (e:Entity {tenant: $tenant, key: f.subject})
  MERGE (f)-[:ABOUT]->(e)
  RETURN count(*) AS about
}
RETURN f.id AS id, f.scope AS scope, f.subject AS subject, f.predicate AS predicate
