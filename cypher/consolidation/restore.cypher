// params: tenant, run_id, ids
// returns: id, scope, subject, predicate, status_before, status
// Rollback of one batch: each named memory gets back exactly the properties and evidence it
// had before the run, and its snapshot is spent in the same transaction (a rollback that
// stops half way goes on from the snapshots left). The caller rebuilds the slots' timelines.
// Its vector, its retrieval bookkeeping and outcome counts (usage, not belief) are left as
// they are now. Only what differs is written: a merge changed three properties of a fact,
// and rewriting all of them (its text re-indexed for full-text search, its evidence edges
// deleted and made again) was most of a large rollback's time.
CYPHER 25
UNWIND $ids AS id
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: id})
WHERE s.tenant = $tenant
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
WITH f, s, f.status AS status_before,
     ['embedding', 'retrieval_count', 'last_retrieved_at', 'helpful_count', 'harmful_count',
      'last_outcome_at', 'last_outcome', 'snapshot_run', 'snapshot_of', 'after_print'] AS kept
WITH f, s, status_before,
     [k IN keys(s) WHERE NOT k IN kept AND (f[k] IS NULL OR f[k] <> s[k])] AS changed,
     [k IN keys(f) WHERE NOT k IN kept AND s[k] IS NULL] AS added
FOREACH (k IN changed | SET f[k] = s[k])
FOREACH (k IN added | REMOVE f[k])
WITH f, s, status_before
CALL (f, s) {
  WITH f, s,
       [(f)-[d:DERIVED_FROM]->(e:Episode) | [e.id, properties(d)]] AS now,
       [(s)-[h:HAD_EVIDENCE]->(e:Episode) | [e.id, properties(h)]] AS was
  WITH f, s WHERE size(now) <> size(was) OR any(x IN was WHERE NOT x IN now)
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
  RETURN count(*) AS redone
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
CALL (s) {
  DETACH DELETE s
  RETURN count(*) AS spent
}
RETURN f.id AS id, f.scope AS scope, f.subject AS subject, f.predicate AS predicate,
       status_before, f.status AS status
