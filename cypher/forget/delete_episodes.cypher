// params: tenant, ids
// returns: deleted
// DETACH DELETE drops their vector and full-text entries too. Idempotency records of batches
// that cited them go with them: their stored results describe what the contributor said.
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
CALL (e) {
  OPTIONAL MATCH (e)<-[:CITES]-(i:IdempotencyKey)
  DETACH DELETE i
}
DETACH DELETE e
RETURN count(*) AS deleted
