// params: tenant, ids
// returns: id
// As if the excised version that flagged them had never been written: no flag, no reason.
UNWIND $ids AS id
MATCH (d:Fact {id: id})
WHERE d.tenant = $tenant
SET d.needs_verification = false, d.verification_reason = null, d.flagged_at = null
RETURN d.id AS id
