// params: tenant
// returns: type, source, target, props
// Every relationship leaving a node of the tenant; one whose far end is not exported (an
// API key, or another tenant's node) is the caller's to count and leave out.
MATCH (a)-[r]->(b)
WHERE a.tenant = $tenant OR (a:Tenant AND a.id = $tenant)
RETURN type(r) AS type, elementId(a) AS source, elementId(b) AS target, properties(r) AS props
