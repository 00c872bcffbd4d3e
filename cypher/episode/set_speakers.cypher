// params: rows
// returns: id
// Stores each episode's speaker key (rows of id, tenant, speaker; a null speaker removes it).
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.tenant = row.tenant
SET e.speaker = row.speaker
RETURN e.id AS id
