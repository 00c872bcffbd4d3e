// params: tenant
// returns: nodes
// What the store already holds of the tenant (its API keys aside: a key made for the import
// is expected).
MATCH (n)
WHERE (n.tenant = $tenant OR (n:Tenant AND n.id = $tenant)) AND NOT n:ApiKey
RETURN count(n) AS nodes
