// params: tenant, nodes
// returns: node, id
// GDS node ids back to episodes.
// gds.util.asNode maps a GDS node id back (Cypher's id() is deprecated; elementId differs).
UNWIND $nodes AS node
WITH node, gds.util.asNode(node) AS e
WHERE e:Episode AND e.tenant = $tenant
RETURN node, e.id AS id
