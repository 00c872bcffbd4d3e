// params: tenant, nodes
// returns: node, id
// GDS node ids back to episodes.
UNWIND $nodes AS node
MATCH (e:Episode)
WHERE id(e) = node AND e.tenant = $tenant
RETURN node, e.id AS id
