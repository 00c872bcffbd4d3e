// params: hash
// returns: id, tenant, user_id, scopes, name, expires_at, revoked_at, parent_live
// As apikey.by_hash, the token names its tenant. A token dies with the key that minted it.
MATCH (t:SessionToken {hash: $hash})
OPTIONAL MATCH (p:ApiKey {id: t.parent_id})
WHERE p.tenant = t.tenant
RETURN t.id AS id, t.tenant AS tenant, t.user_id AS user_id, t.scopes AS scopes,
       t.name AS name, t.expires_at AS expires_at, t.revoked_at AS revoked_at,
       p IS NOT NULL AND p.revoked_at IS NULL AS parent_live
