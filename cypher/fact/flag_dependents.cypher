// params: tenant, premises, now
// returns: id, premise
// A conclusion whose premise was superseded or retracted must not be served as if nothing
// changed: flag it needs-verification with the reason.
UNWIND $premises AS p
MATCH (d:Fact)-[:DEPENDS_ON]->(premise:Fact {id: p.id})
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
SET d.needs_verification = true, d.verification_reason = p.reason, d.flagged_at = $now,
    // Each flag and verification is logged with its time: reads as of a past moment use it.
    d.flag_log_at = coalesce(d.flag_log_at, []) + [$now],
    d.flag_log = coalesce(d.flag_log, []) + [true]
RETURN d.id AS id, p.id AS premise
