// params: tenant, scopes, limit
// returns: proposal
// Open merge proposals of these scopes, most alike first.
MATCH (p:MergeProposal {tenant: $tenant, status: 'open'})
// The pair's keys (always set) let the scope seek the (tenant, scope, entity_a, entity_b) index.
WHERE p.scope IN $scopes AND p.entity_a IS NOT NULL AND p.entity_b IS NOT NULL
RETURN p {.*} AS proposal
ORDER BY p.score DESC, p.id
LIMIT $limit
