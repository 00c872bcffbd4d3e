// params: tenant
// returns: id, labels, props
// Every node of the tenant, its Tenant node included; API keys stay behind (credentials of
// the old store: the new one gets keys of its own). A full scan: export is an offline job.
MATCH (n)
WHERE (n.tenant = $tenant OR (n:Tenant AND n.id = $tenant)) AND NOT n:ApiKey
RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props
