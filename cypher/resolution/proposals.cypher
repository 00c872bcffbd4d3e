// params: tenant, scopes, limit
// returns: proposal
// Open merge proposals of these scopes, most alike first. Not one naming an entity gone
// since, or one only a forgotten contributor's facts name while their purge runs
// (forget/_hidden_entity): the names are theirs (the purge's end deletes such proposals,
// forget/orphan_proposals).
#include forget/_hidden
MATCH (p:MergeProposal {tenant: $tenant, status: 'open'})
// The pair's keys (always set) let the scope seek the (tenant, scope, entity_a, entity_b) index.
WHERE p.scope IN $scopes AND p.entity_a IS NOT NULL AND p.entity_b IS NOT NULL
MATCH (a:Entity {tenant: $tenant, key: p.entity_a}), (b:Entity {tenant: $tenant, key: p.entity_b})
WHERE NOT
#include forget/_hidden_entity(a)
  AND NOT
#include forget/_hidden_entity(b)
RETURN p {.*} AS proposal
ORDER BY p.score DESC, p.id
LIMIT $limit
