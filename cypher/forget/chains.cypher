// params: tenant, ids
// returns: id, older, newer
// The supersession neighbours of versions about to be excised.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f)
RETURN f.id AS id, o.id AS older, n.id AS newer
