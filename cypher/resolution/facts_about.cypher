// params: tenant, scope, key
// returns: id
// The versions of one scope about an entity (what a merge of it moves).
MATCH (f:Fact {tenant: $tenant, scope: $scope, subject: $key})
RETURN f.id AS id
