// params: tenant, ids, now, reason
// returns: id
// An inferred fact promoted by corroboration that no longer has enough independent sessions
// goes back to review; one a human approved stays active.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant AND f.tier = 'inferred' AND f.status = 'active'
  AND f.approved_at IS NULL AND f.superseded_at IS NULL AND f.retracted_at IS NULL
// Never active, as far as any later asOf read can tell: the support it had is excised.
SET f.status = 'candidate', f.activated_at = null, f.demoted_at = $now, f.demoted_reason = $reason
RETURN f.id AS id
