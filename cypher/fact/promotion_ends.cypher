// params: tenant, ids
// returns: id, ends
// What promoting these versions would change besides them (fact/_close_linked): the version
// each was written to supersede, if still open, and the conclusions drawn from that (as deep
// as fact.flag_dependents goes). A consolidation run snapshots them before a batch that may
// promote (its rollback then gives them back).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
WHERE old.superseded_at IS NULL AND old.retracted_at IS NULL AND old.rejected_at IS NULL
OPTIONAL MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(old)
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
WITH f, [x IN collect(DISTINCT old.id) + collect(DISTINCT d.id) WHERE x IS NOT NULL] AS ends
RETURN f.id AS id, ends
