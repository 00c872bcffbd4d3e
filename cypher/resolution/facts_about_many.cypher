// params: tenant, merges
// returns: id, gone
// The versions of each merge's scope about the entity it absorbs that are still believed
// (what a batch of merges carries over to the survivor), named by the merge. A retracted or
// rejected version stays the absorbed entity's history. The same match as
// resolution/merge_many's, so every version snapshotted here is carried (and fingerprinted).
UNWIND $merges AS m
MATCH (src:Entity {tenant: $tenant, key: m.gone}), (:Entity {tenant: $tenant, key: m.keep})
MATCH (f:Fact {tenant: $tenant, scope: m.scope, subject: m.gone})-[:ABOUT]->(src)
WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL
RETURN f.id AS id, m.gone AS gone
