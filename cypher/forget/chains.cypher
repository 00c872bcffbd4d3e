// params: tenant, ids
// returns: links
// The supersession neighbours of versions about to be excised (one row, a list of maps).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f)
RETURN collect({id: f.id, older: o.id, newer: n.id}) AS links
