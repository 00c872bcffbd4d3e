// params: tenant, ids, now, reason
// returns: id, status_before, status
// An inferred fact promoted by corroboration that no longer has enough independent sessions
// loses the promotion; one a human approved keeps it. A current one goes back to review; a
// superseded or retracted one keeps its status but was never active, as far as any asOf read
// can tell (activated_at is what those reads check).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant AND f.tier = 'inferred' AND f.activated_at IS NOT NULL
  AND f.approved_at IS NULL
WITH f, f.status AS status_before
SET f.status = CASE WHEN status_before = 'active' THEN 'candidate' ELSE status_before END,
    f.activated_at = null, f.demoted_at = $now, f.demoted_reason = $reason
RETURN f.id AS id, status_before, f.status AS status
