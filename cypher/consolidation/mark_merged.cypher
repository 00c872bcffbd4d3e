// params: tenant, moves, now
// returns: id, merged_into
// The retracted duplicate names the version it was merged into (provenance of the merge).
UNWIND $moves AS m
MATCH (dup:Fact {id: m.from})
WHERE dup.tenant = $tenant
SET dup.merged_into = m.to, dup.merged_at = $now
RETURN dup.id AS id, dup.merged_into AS merged_into
