// params: tenant, merges
// returns: id, gone
// The versions of each merge's scope about the entity it absorbs that are still believed
// (what a batch of merges carries over to the survivor), named by the merge. A retracted or
// rejected version stays the absorbed entity's history.
UNWIND $merges AS m
MATCH (f:Fact {tenant: $tenant, scope: m.scope, subject: m.gone})
WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL
RETURN f.id AS id, m.gone AS gone
