// params: tenant, key, request_hash, result, now
// returns: key
MERGE (i:IdempotencyKey {tenant: $tenant, key: $key})
ON CREATE SET i.request_hash = $request_hash, i.result = $result, i.created_at = $now
RETURN i.key AS key
