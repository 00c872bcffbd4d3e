// params: tenant, scopes, now
// returns: id, dependents
// Facts of these scopes whose TTL has elapsed and that the sweep has not demoted yet, with
// the conclusions the sweep will flag (DEPENDS_ON, as deep as fact.flag_dependents goes).
MATCH (f:Fact {tenant: $tenant})
WHERE f.scope IN $scopes AND f.expires_at <= $now AND f.status IN ['active', 'candidate']
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
OPTIONAL MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(f)
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
RETURN f.id AS id, [x IN collect(DISTINCT d.id) WHERE x IS NOT NULL] AS dependents
ORDER BY f.id
