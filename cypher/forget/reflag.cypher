// params: tenant, rows
// returns: id
// A conclusion still awaiting verification, its reason now naming a premise that survives.
UNWIND $rows AS row
MATCH (d:Fact {id: row.id})
WHERE d.tenant = $tenant
SET d.verification_reason = row.reason
RETURN d.id AS id
