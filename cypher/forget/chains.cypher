// params: tenant, ids
// returns: links
// The supersession neighbours of versions about to be excised (one row, a list of maps): the
// version each links to (`older`), each version linking to it (`newer`: one map each; a
// candidate only links, so a version may have several), and the version that ended it
// (`closer`: its superseded_by).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f)
RETURN collect({id: f.id, older: o.id, newer: n.id, closer: f.superseded_by}) AS links
