// params: tenant, run_id, ids
// returns: id
// The state a run found each memory in, kept with native types for an exact rollback: a
// copy of the version's properties (its vector is never changed by a run, so not copied)
// and of its evidence edges. Written in the same transaction as the batch that first
// changes the memory; a memory already snapshotted by this run keeps its first snapshot.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
  AND NOT EXISTS { MATCH (:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: id}) }
CREATE (s:ConsolidationSnapshot)
SET s = f {.*, embedding: null}, s.snapshot_run = $run_id, s.snapshot_of = f.id
WITH f, s
CALL (f, s) {
  OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  FOREACH (_ IN CASE WHEN d IS NULL THEN [] ELSE [1] END |
    CREATE (s)-[h:HAD_EVIDENCE]->(e) SET h = properties(d))
  RETURN count(*) AS edges
}
RETURN f.id AS id
