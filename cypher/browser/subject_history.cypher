// params: tenant, subject
// returns: version, triple, status, recorded_at, superseded_at, valid_from, valid_to, confidence, graph
// Every version of every predicate about a subject, as a path you can expand in Browser.
// In Browser: :param tenant => 'demo'  then  :param subject => 'alice'
MATCH (e:Entity {tenant: $tenant, key: toLower(trim($subject))})<-[:ABOUT]-(f:Fact)
OPTIONAL MATCH p = (f)-[:SUPERSEDES]->(:Fact)
RETURN f.version AS version, f.caption AS triple, f.status AS status,
       f.recorded_at AS recorded_at, f.superseded_at AS superseded_at,
       f.valid_from AS valid_from, f.valid_to AS valid_to, f.confidence AS confidence,
       p AS graph
ORDER BY f.predicate, f.recorded_at
