// params: tenant, nodes
// returns: node, id, key, name, facts
// GDS node ids back to entities, with how many facts are about each (the survivor of a merge
// is the one more is known about: versions still believed).
// gds.util.asNode maps a GDS node id back (Cypher's id() is deprecated; elementId differs).
UNWIND $nodes AS node
WITH node, gds.util.asNode(node) AS e
WHERE e:Entity AND e.tenant = $tenant
RETURN node, e.id AS id, e.key AS key, coalesce(e.name, e.key) AS name,
       COUNT { (f:Fact)-[:ABOUT]->(e) WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL }
         AS facts
