// params: tenant, rows
// returns: linked
UNWIND $rows AS row
MATCH (f:Fact {id: row.fact_id})
MATCH (p:Fact {id: row.premise_id})
WHERE p.tenant = $tenant
MERGE (f)-[:DEPENDS_ON]->(p)
RETURN count(*) AS linked
