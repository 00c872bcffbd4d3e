// params: tenant, rows
// returns: id
// New fact versions and their subjects, one flat statement per batch (UNWIND): the evidence,
// object, dependency and supersession edges are separate statements in the same transaction.
UNWIND $rows AS row
CREATE (f:Fact)
SET f = row.props
MERGE (s:Entity {tenant: $tenant, key: row.subject})
ON CREATE SET s.id = row.subject_id, s.name = row.subject_name, s.caption = row.subject_name
CREATE (f)-[:ABOUT]->(s)
RETURN count(f) AS id
