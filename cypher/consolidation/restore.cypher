// params: tenant, run_id, batch, limit, audit
// returns: id, scope, subject, predicate, left_scope, left_subject, left_predicate, resettle
// Rollback of one run batch: each memory the batch snapshotted first gets back exactly the
// properties and evidence it had before the run (of a copy-on-write snapshot, the properties
// it holds: the only ones the run changed). Its vector, its retrieval bookkeeping and
// outcome counts (usage, not belief) are left as they are now. Only what differs is written
// (a merge changed three properties of a fact; rewriting all of them re-indexed its text and
// remade its evidence edges, most of a large rollback's time). Each row says the slot the
// version leaves (`left_*`) and returns to: the caller settles the timeline. A snapshot is
// marked spent in the same transaction (a rollback that stops part way goes on from those
// left); one whose memory's timeline the run settled by the rule (`resettle`) also keeps the
// slot left, for the rollback's last pass to recompute those slots. Spent snapshots are
// deleted after the rollback, in the background (consolidation.sweep): a deleted node pays
// for its index entries and property records at commit, which was a third of a 100k-fact
// rollback's commits, and nothing reads a spent snapshot but that last pass. At most `limit`
// a call (the caller pages until fewer come back); a snapshot whose memory is gone since
// (excised) is left for the sweep. A memory the run created (an entity
// merge's copy, `created`) is deleted instead, its slot returned as the one it leaves.
// Every restored memory is audited here, one 'rollback' event each (`audit`: the fields all
// of them share, events.event's at/actor/actor_type/reason): built by the statement from the
// rows it restores instead of sent back as 24,000 event maps for a 100k-fact run.
CYPHER 25
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_batch: $batch})
// The planner otherwise seeks (snapshot_run, snapshot_of), reading every snapshot of the run
// per batch: a rollback of 25 batches read all of them 25 times.
USING INDEX s:ConsolidationSnapshot(snapshot_run, snapshot_batch)
WHERE s.tenant = $tenant AND s.spent IS NULL
MATCH (f:Fact {id: s.snapshot_of})
WHERE f.tenant = $tenant
WITH f, s LIMIT $limit
WITH f, s, f.status AS status_before, f.scope AS left_scope, f.subject AS left_subject,
     f.predicate AS left_predicate, coalesce(s.created, false) AS created,
     CASE WHEN coalesce(s.created, false) THEN [] ELSE s.snapshot_keys END AS only,
     ['embedding', 'retrieval_count', 'last_retrieved_at', 'helpful_count', 'harmful_count',
      'last_outcome_at', 'last_outcome', 'snapshot_run', 'snapshot_of', 'snapshot_batch',
      'snapshot_keys', 'after_print', 'resettle', 'spent', 'left_scope', 'left_subject',
      'left_predicate',
      // Whom a session token acted for never changes in a run; a snapshot taken before
      // schema 110 backfilled these must not strip them (a forget finds marks by them).
      'created_for', 'retracted_for', 'closed_for',
      // The search term of its kind (schema 150), likewise written onto memories a run had
      // left: a snapshot from before has none, and removing it would hide the memory from
      // keyword search.
      'ft_kind'] AS kept
// A copy-on-write snapshot (only: the properties its batches could change) restores just
// those; a whole one compares every property.
WITH f, s, only, created, status_before, left_scope, left_subject, left_predicate,
     CASE WHEN only IS NULL
       THEN [k IN keys(s) WHERE NOT k IN kept AND (f[k] IS NULL OR f[k] <> s[k])]
       ELSE [k IN only WHERE s[k] IS NOT NULL AND (f[k] IS NULL OR f[k] <> s[k])] END AS changed,
     CASE WHEN only IS NULL
       THEN [k IN keys(f) WHERE NOT k IN kept AND s[k] IS NULL]
       ELSE [k IN only WHERE s[k] IS NULL AND f[k] IS NOT NULL] END AS added
FOREACH (k IN changed | SET f[k] = s[k])
FOREACH (k IN added | REMOVE f[k])
WITH f, s, only, created, status_before, left_scope, left_subject, left_predicate
CALL (f, s, only) {
  WITH f, s WHERE only IS NULL
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
// A fact an entity merge moved is about its own subject again (only a merge moves one).
CALL (f, left_subject) {
  WITH f WHERE left_subject <> f.subject
  CALL (f) {
    OPTIONAL MATCH (f)-[a:ABOUT]->(x:Entity)
    WHERE x.key <> f.subject
    DELETE a
    RETURN count(*) AS moved
  }
  MATCH (e:Entity {tenant: $tenant, key: f.subject})
  MERGE (f)-[:ABOUT]->(e)
  RETURN count(*) AS about
}
WITH f, s, s.resettle AS resettle, created, status_before, left_scope, left_subject,
     left_predicate
CALL (s, resettle, left_scope, left_subject, left_predicate) {
  SET s.spent = true
  WITH s WHERE resettle
  SET s.left_scope = left_scope, s.left_subject = left_subject, s.left_predicate = left_predicate
  RETURN count(*) AS kept
}
// before/after as events.snapshot writes them: JSON of the one key, sorted.
CALL (f, status_before, created) {
  WITH f, status_before, created, $audit AS au
  WITH au {.*, id: 'aud_' + replace(randomUUID(), '-', ''), action: 'rollback',
           target_type: 'fact', target_id: f.id, confidence_delta: null,
           before: '{"status": ' + coalesce('"' + status_before + '"', 'null') + '}',
           after: CASE WHEN created THEN '{"status": null}'
                  ELSE '{"status": ' + coalesce('"' + f.status + '"', 'null') + '}' END} AS ev
#include audit/_create(ev)
  RETURN count(a) AS audited
}
WITH f, f.id AS id, f.scope AS scope, f.subject AS subject, f.predicate AS predicate,
     created, left_scope, left_subject, left_predicate, resettle
CALL (f, created) {
  WITH f WHERE created
  DETACH DELETE f
  RETURN count(*) AS deleted
}
RETURN id, scope, subject, predicate, left_scope, left_subject, left_predicate,
       coalesce(resettle, false) AS resettle
