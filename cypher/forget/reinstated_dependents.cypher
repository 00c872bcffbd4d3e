// params: tenant, ids
// returns: id, reason
// Conclusions awaiting verification whose premise is current again after a forget: the
// service unflags the ones whose flag the excised versions caused.
UNWIND $ids AS pid
MATCH (d:Fact)-[:DEPENDS_ON]->(:Fact {id: pid})
WHERE d.tenant = $tenant AND d.needs_verification
RETURN DISTINCT d.id AS id, d.verification_reason AS reason
