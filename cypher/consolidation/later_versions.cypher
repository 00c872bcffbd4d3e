// params: tenant, run_id, since
// returns: id
// Versions someone else wrote, since the run began, into the slots the run's memories return
// to on rollback: a fact told again under a name the run merged away is a new version there
// (its old version was ended by the merge), and restoring the old one beside it would leave
// two live versions of one claim. A rollback refuses while there is one (a few named): the
// same object, or any value of a one-valued slot.
CYPHER 25
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
WHERE s.tenant = $tenant AND NOT coalesce(s.created, false)
  // Only memories still to restore, or whose slots the last pass recomputes: one restored
  // already (a rollback that stopped part way) is back in its slot.
  AND (s.spent IS NULL OR s.resettle)
MATCH (f:Fact {id: s.snapshot_of})
WHERE f.tenant = $tenant
WITH coalesce(s.scope, f.scope) AS scope, coalesce(s.subject, f.subject) AS subject,
     coalesce(s.predicate, f.predicate) AS predicate, collect(f.object_key) AS objects
MATCH (o:Fact {tenant: $tenant, scope: scope, subject: subject, predicate: predicate})
WHERE o.recorded_at >= $since
  // What competes with a restored version: the same object, or any value of a one-valued slot
  // (another object beside it in a many-valued slot is a claim of its own).
  AND (o.object_key IN objects OR o.cardinality = 'one')
  AND NOT EXISTS { MATCH (:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: o.id}) }
RETURN o.id AS id
LIMIT 5
