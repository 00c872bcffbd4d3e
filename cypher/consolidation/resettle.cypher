// params: tenant, run_id, limit
// returns: resettle, scope, subject, predicate, left_scope, left_subject, left_predicate
// A rollback's last pass: a page of the restored memories whose timeline the run settled by
// the rule (kept by consolidation.restore), each with the slot it is in again and the slot
// it left (spent with `resettle`); the caller recomputes both from the versions in the same
// transaction, and the snapshots go.
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
// `snapshot_of IS NOT NULL` (always true) seeks the (snapshot_run, snapshot_of) index.
// Every spent snapshot goes, a page at a time (those restored without a slot to recompute
// too: left in place, each page would read past all of them again); rows for the others.
WHERE s.snapshot_of IS NOT NULL AND s.tenant = $tenant AND s.spent = true
WITH s LIMIT $limit
WITH s, coalesce(s.resettle, false) AS resettle, s.scope AS scope, s.subject AS subject,
     s.predicate AS predicate, s.left_scope AS left_scope, s.left_subject AS left_subject,
     s.left_predicate AS left_predicate
DETACH DELETE s
RETURN resettle, scope, subject, predicate, left_scope, left_subject, left_predicate
