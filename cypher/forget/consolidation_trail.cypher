// params: tenant, scope, stand_in, now
// returns: runs, changes, snapshots, journals
// A consolidation's record of what the purge excised (run when it finishes): the history must
// not keep what no read may show. Per run of the tenant:
// * its scopes name the forgotten user's own scope by a stand-in;
// * a change whose memory is gone (a fact, episode, e.g. a digest, or entity excised) keeps
//   its step, action, target and seq, not the before/after/reason quoting it (audit.redact's
//   rule); the run's counts stay;
// * a snapshot of a memory that is gone is dropped (a rollback drops those anyway: it
//   restores only memories that exist), and every snapshot of a rolled-back run (spent,
//   waiting for its sweep);
// * a journal entry of a segment that is gone (moved) or of a fact that is gone (deleted)
//   loses its scope and subject (a rollback matches the segment or fact first: it skips it).
MATCH (r:ConsolidationRun {tenant: $tenant})
WHERE r.id IS NOT NULL  // seeks the (tenant, id) index, not every tenant's runs
CALL (r) {
  WITH r WHERE $scope IN coalesce(r.scopes, [])
  SET r.scopes = [s IN r.scopes | CASE WHEN s = $scope THEN $stand_in ELSE s END]
  RETURN count(*) AS runs
}
CALL (r) {
  MATCH (r)-[:CHANGED]->(x:ConsolidationChange)
  WHERE x.redacted_at IS NULL
  // One lookup per change, by the kind its id names (fact_, ep_ incl. digests, proc_; an
  // entity by id or key otherwise): every forget reads every change of the tenant's runs.
  WITH x, x.target_id AS t
  WHERE CASE
    WHEN t STARTS WITH 'fact_'
      THEN NOT EXISTS { MATCH (f:Fact {id: t}) WHERE f.tenant = $tenant }
    WHEN t STARTS WITH 'ep_'
      THEN NOT EXISTS { MATCH (e:Episode {id: t}) WHERE e.tenant = $tenant }
    WHEN t STARTS WITH 'proc_'
      THEN NOT EXISTS { MATCH (p:Procedure {id: t}) WHERE p.tenant = $tenant }
    ELSE NOT EXISTS { MATCH (en:Entity {id: t}) WHERE en.tenant = $tenant }
         AND NOT EXISTS { MATCH (en:Entity {tenant: $tenant, key: t}) }
  END
#include audit/_blank(x)
  RETURN count(x) AS changes
}
CALL (r) {
  MATCH (s:ConsolidationSnapshot {snapshot_run: r.id})
  WHERE s.snapshot_of IS NOT NULL AND s.tenant = $tenant  // seeks (snapshot_run, snapshot_of)
    // Every snapshot of a rolled-back run: spent, left to a sweep that may not have run (its
    // copies of what a fact said must not outlive the forget either).
    AND (r.status = 'rolled_back'
         OR (NOT EXISTS { MATCH (f:Fact {id: s.snapshot_of}) WHERE f.tenant = $tenant }
             AND NOT EXISTS { MATCH (e:Episode {id: s.snapshot_of}) WHERE e.tenant = $tenant }))
  DETACH DELETE s
  RETURN count(*) AS snapshots
}
CALL (r) {
  MATCH (j:ConsolidationJournal {tenant: $tenant, run_id: r.id})
  WHERE j.batch IS NOT NULL  // seeks the (tenant, run_id, batch) index
  WITH j,
       [i IN range(0, size(coalesce(j.moved_ids, [])) - 1) |
        EXISTS { MATCH (s:Segment {id: j.moved_ids[i]}) WHERE s.tenant = $tenant }] AS moved,
       [i IN range(0, size(coalesce(j.deleted_ids, [])) - 1) |
        EXISTS { MATCH (f:Fact {id: j.deleted_facts[i]}) WHERE f.tenant = $tenant }] AS kept
  WHERE false IN moved OR false IN kept
  SET j.moved_scopes = [i IN range(0, size(moved) - 1) |
                        CASE WHEN moved[i] THEN j.moved_scopes[i] ELSE '' END],
      j.moved_subjects = [i IN range(0, size(moved) - 1) |
                          CASE WHEN moved[i] THEN j.moved_subjects[i] ELSE '' END],
      j.deleted_scopes = [i IN range(0, size(kept) - 1) |
                          CASE WHEN kept[i] THEN j.deleted_scopes[i] ELSE '' END],
      j.deleted_subjects = [i IN range(0, size(kept) - 1) |
                            CASE WHEN kept[i] THEN j.deleted_subjects[i] ELSE '' END]
  RETURN count(j) AS journals
}
RETURN sum(runs) AS runs, sum(changes) AS changes, sum(snapshots) AS snapshots,
       sum(journals) AS journals
