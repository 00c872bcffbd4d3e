// params: tenant, run_id, batch, rows
// returns: fact
// A batch's first look at the memories it will change, in one round trip: each one's state
// now (the projection of fact.get, which the diff compares with the state after), and, for
// those the run has not changed yet (row.fresh), the snapshot a rollback restores: a copy of
// its properties with native types (its vector is never changed by a run, so not copied) and
// of its evidence edges, numbered by the run's batch (a rollback undoes the run batch by
// batch, newest first, finding each batch's snapshots by index). A memory already
// snapshotted by this run keeps its first snapshot. `row.settle`: the batch settles the
// memory's timeline through the rule (any step but an entity merge, whose timeline writes
// are journaled exactly): its snapshot says so, and a rollback recomputes its slots.
// `row.keys`: the only properties the batch can change (an entity merge: the subject's three;
// null: any, and the evidence): the snapshot copies just those (snapshot_keys) plus the slot,
// copy-on-write. A later batch that may change more widens it with the fact's values then,
// which are still the ones from before the run, since nothing else was changed.
CYPHER 25
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
CALL (f, row) {
  WITH f WHERE NOT row.fresh
  MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: f.id})
  SET s.resettle = s.resettle OR row.settle
  WITH f, row, s WHERE s.snapshot_keys IS NOT NULL
  WITH f, row, s,
       [k IN coalesce(row.keys, [k IN keys(f) WHERE k <> 'embedding'])
        WHERE NOT k IN s.snapshot_keys] AS more
  FOREACH (k IN more | SET s[k] = f[k])
  SET s.snapshot_keys = CASE WHEN row.keys IS NULL THEN null ELSE s.snapshot_keys + more END
  WITH f, row, s WHERE row.keys IS NULL
  CALL (f, s) {
    OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
    FOREACH (_ IN CASE WHEN d IS NULL THEN [] ELSE [1] END |
      CREATE (s)-[h:HAD_EVIDENCE]->(e) SET h = properties(d))
    RETURN count(*) AS edges
  }
  RETURN count(s) AS widened
}
CALL (f, row) {
  WITH f WHERE row.fresh
    AND NOT EXISTS { MATCH (:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: f.id}) }
  CREATE (s:ConsolidationSnapshot)
  SET s.snapshot_run = $run_id, s.snapshot_of = f.id, s.snapshot_batch = $batch,
      s.resettle = row.settle
  WITH f, row, s
  CALL (f, row, s) {
    WITH f, row, s WHERE row.keys IS NOT NULL
    SET s.tenant = f.tenant, s.scope = f.scope, s.subject = f.subject,
        s.predicate = f.predicate, s.snapshot_keys = row.keys
    FOREACH (k IN row.keys | SET s[k] = f[k])
    RETURN count(*) AS partial
  }
  CALL (f, row, s) {
    WITH f, s WHERE row.keys IS NULL
    SET s += f {.*, embedding: null}
    WITH f, s
    OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
    FOREACH (_ IN CASE WHEN d IS NULL THEN [] ELSE [1] END |
      CREATE (s)-[h:HAD_EVIDENCE]->(e) SET h = properties(d))
    RETURN count(*) AS edges
  }
  RETURN count(s) AS made
}
RETURN f {.*, embedding: null,
#include fact/_state_times(f)
          } AS fact
