// params: tenant, ids
// returns: deleted
// Hard delete (DETACH also drops the vector and full-text index entries): excision, not a
// status, so no read at any asOf can find them.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
DETACH DELETE f
RETURN count(*) AS deleted
