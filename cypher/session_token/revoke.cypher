// params: id, tenant, by_key, now
// returns: id
// by_key null: any token of the tenant (an admin); else only a token that key minted, or the
// token itself (a session ending early).
MATCH (t:SessionToken {id: $id})
WHERE t.tenant = $tenant AND t.revoked_at IS NULL
  AND ($by_key IS NULL OR t.parent_id = $by_key OR t.id = $by_key)
SET t.revoked_at = $now
RETURN t.id AS id
