// params: tenant, rows
// returns: id
// Surviving versions first written citing a forgotten contributor take the neutral wording of
// their triple; the embedding of the old text goes (the service stores the new one through
// fact.set_embeddings): the triple is corroborated by others, the free text was theirs.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
SET f.text = row.text
REMOVE f.embedding
RETURN f.id AS id
