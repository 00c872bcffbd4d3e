// params: tenant, merges
// returns: id, gone
// The versions of each merge's scope about the entity it absorbs (what a batch of merges
// moves), named by the merge.
UNWIND $merges AS m
MATCH (f:Fact {tenant: $tenant, scope: m.scope, subject: m.gone})
RETURN f.id AS id, m.gone AS gone
