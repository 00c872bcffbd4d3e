// params: tenant
// returns: id, labels, props
// Every node of the tenant, its Tenant node included; API keys stay behind (credentials of
// the old store: the new one gets keys of its own). A full scan: export is an offline job.
MATCH (n)
WHERE (n.tenant = $tenant OR (n:Tenant AND n.id = $tenant)) AND NOT n:ApiKey
// The Tenant's forget-receipt salt stays behind too: with it, an export's holder could compute
// a forgotten user's receipt from their id (forget/user_key.cypher); the new store makes its own.
RETURN elementId(n) AS id, labels(n) AS labels,
       CASE WHEN n:Tenant THEN n {.*, receipt_salt: null} ELSE properties(n) END AS props
