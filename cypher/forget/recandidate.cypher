// params: tenant, ids, now, reason
// returns: id, status_before, status, reopened
// An inferred fact promoted by corroboration that no longer has enough independent sessions
// loses the promotion; one a human approved keeps it. A current one goes back to review; a
// superseded or retracted one keeps its status but was never active, as far as any asOf read
// can tell (activated_at is what those reads check). So what it ended when promoted
// (fact/_close_linked) it never ended: the served version that ended it in turn ends that
// one instead (as a write would have had it never been served), or else it is current again
// (`reopened`).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant AND f.tier = 'inferred' AND f.activated_at IS NOT NULL
  AND f.approved_at IS NULL
WITH f, f.status AS status_before,
     [i IN range(0, size(coalesce(f.changes, [])) - 1) WHERE f.changes[i] <> 'activated'] AS keep
SET f.status = CASE WHEN status_before = 'active' THEN 'candidate' ELSE status_before END,
    f.activated_at = null, f.demoted_at = $now, f.demoted_reason = $reason,
    // Its activations leave the change log too: no asOf read finds it active.
    f.changes_at = [i IN keep | f.changes_at[i]], f.changes = [i IN keep | f.changes[i]]
WITH f, status_before
CALL (f) {
  OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
  WHERE o.superseded_by = f.id
  OPTIONAL MATCH (k:Fact {id: f.superseded_by})
  WHERE k.tenant = $tenant AND k.activated_at IS NOT NULL
  WITH o, k WHERE o IS NOT NULL AND k IS NOT NULL
#include fact/_ended_by(o)
  RETURN count(*) AS handed_on
}
CALL (f) {
  OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
  WHERE o.superseded_by = f.id
  WITH o WHERE o IS NOT NULL
#include fact/_reopen(o)
  RETURN collect(o.id) AS reopened
}
RETURN f.id AS id, status_before, f.status AS status, reopened
