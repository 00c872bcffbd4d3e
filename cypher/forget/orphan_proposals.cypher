// params: tenant
// returns: ids
// Entity-merge proposals naming an entity that is gone (a purge deleted the names only the
// forgotten user's facts gave): the proposal's names are theirs too. Run once when a purge
// finishes, after forget/merged_entities; the caller redacts the audit events about them.
MATCH (p:MergeProposal {tenant: $tenant})
WHERE p.run_id IS NOT NULL  // seeks the (tenant, run_id) index
  AND (NOT EXISTS { MATCH (:Entity {tenant: $tenant, key: p.entity_a}) }
       OR NOT EXISTS { MATCH (:Entity {tenant: $tenant, key: p.entity_b}) })
WITH p, p.id AS id
DETACH DELETE p
RETURN collect(id) AS ids
