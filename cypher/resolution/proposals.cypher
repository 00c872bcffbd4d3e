// params: tenant, scopes, limit
// returns: proposal
// Open merge proposals of these scopes, most alike first.
MATCH (p:MergeProposal {tenant: $tenant, status: 'open'})
WHERE p.scope IN $scopes
RETURN p {.*} AS proposal
ORDER BY p.score DESC, p.id
LIMIT $limit
