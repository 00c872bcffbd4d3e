// params: tenant, user_id
// returns: deleted
// forgetContributor's residue: a token names its user and their scopes; the user's tokens go.
MATCH (t:SessionToken {tenant: $tenant, user_id: $user_id})
DETACH DELETE t
RETURN count(*) AS deleted
