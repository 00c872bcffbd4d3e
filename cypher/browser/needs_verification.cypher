// params: tenant
// returns: conclusion, reason, flagged_at, premise
// Conclusions whose premise changed, with the premise they depend on.
// In Browser: :param tenant => 'demo'
MATCH (d:Fact {tenant: $tenant, needs_verification: true})
WHERE d.status IS NOT NULL  // seeks the (tenant, status) index, not every tenant's facts
OPTIONAL MATCH (d)-[:DEPENDS_ON]->(p:Fact)
RETURN d.caption AS conclusion, d.verification_reason AS reason, d.flagged_at AS flagged_at,
       collect(p.caption) AS premise
