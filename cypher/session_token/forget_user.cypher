// params: tenant, user_id, before
// returns: deleted
// forgetContributor's residue: a token names its user and their scopes; the user's tokens
// minted before the forget go (the user id's later sessions are a new contributor's).
MATCH (t:SessionToken {tenant: $tenant, user_id: $user_id})
WHERE $before IS NULL OR t.created_at < $before
DETACH DELETE t
RETURN count(*) AS deleted
