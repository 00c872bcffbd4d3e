// params: id, hash, tenant, parent_id, user_id, scopes, name, now, expires_at
// returns: id
// Minted only by a live key of the same tenant: a key revoked a moment ago mints nothing.
MATCH (k:ApiKey {id: $parent_id})
WHERE k.tenant = $tenant AND k.revoked_at IS NULL
CREATE (t:SessionToken {id: $id, hash: $hash, tenant: $tenant, parent_id: $parent_id,
                        user_id: $user_id, scopes: $scopes, name: $name, created_at: $now,
                        expires_at: $expires_at, caption: $name})
RETURN t.id AS id
