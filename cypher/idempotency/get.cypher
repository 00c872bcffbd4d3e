// params: tenant, key
// returns: request_hash, result
MATCH (i:IdempotencyKey {tenant: $tenant, key: $key})
RETURN i.request_hash AS request_hash, i.result AS result
