// params: tenant, rows
// returns: id
// Stored through the procedure so the vector is kept as a float32 array the index expects.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
RETURN f.id AS id
