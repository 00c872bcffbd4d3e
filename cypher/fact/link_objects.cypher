// params: tenant, rows, now
// returns: linked
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
MERGE (o:Entity {tenant: $tenant, key: row.object_key})
ON CREATE SET o.id = row.object_id, o.name = row.object, o.caption = row.object,
              o.created_at = $now
CREATE (f)-[:OBJECT]->(o)
RETURN count(*) AS linked
