// params: tenant, run_id, limit
// returns: scope, subject, predicate, left_scope, left_subject, left_predicate
// A rollback's last pass: a page of the restored memories whose timeline the run settled by
// the rule (kept by consolidation.restore), each with the slot it is in again and the slot
// it left (spent with `resettle`); the caller recomputes both from the versions in the same
// transaction, and the snapshots go.
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
// `snapshot_of IS NOT NULL` (always true) seeks the (snapshot_run, snapshot_of) index.
WHERE s.snapshot_of IS NOT NULL AND s.tenant = $tenant AND s.spent = true AND s.resettle = true
WITH s LIMIT $limit
WITH s, s.scope AS scope, s.subject AS subject, s.predicate AS predicate,
     s.left_scope AS left_scope, s.left_subject AS left_subject,
     s.left_predicate AS left_predicate
DETACH DELETE s
RETURN scope, subject, predicate, left_scope, left_subject, left_predicate
