// params: tenant, premises, now
// returns: id, premise
// A conclusion whose premise was superseded or retracted must not be served as if nothing
// changed: flag it needs-verification with the reason.
UNWIND $premises AS p
MATCH (d:Fact)-[:DEPENDS_ON]->(premise:Fact {id: p.id})
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
SET d.needs_verification = true, d.verification_reason = p.reason, d.flagged_at = $now
RETURN d.id AS id, p.id AS premise
