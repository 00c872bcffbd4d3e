// params: id, now
// returns: id
MATCH (k:ApiKey {id: $id})
WHERE k.revoked_at IS NULL
SET k.revoked_at = $now
RETURN k.id AS id
