// params: tenant
// returns: seq
// Serialises writers of one tenant: the read-decide-write of a batch runs under this lock, so
// two concurrent batches can never both create a "current" version of the same slot.
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime(), t.caption = $tenant, t.name = $tenant
SET t.write_seq = coalesce(t.write_seq, 0) + 1
RETURN t.write_seq AS seq
