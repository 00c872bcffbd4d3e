// params: tenant, sessions
// returns: linked
// Consecutive episodes of a session, NEXT in the order they happened (started_at, then the
// order they were recorded in: recorded_at, then their place in the batch, seq). Each session
// named in $sessions ({scope, session_id}) is relinked whole: an episode reported late (an
// earlier turn recorded after a later one) lands in its place, and no stale edge survives.
// The chain stays inside one scope, so following NEXT can never cross into another scope.
UNWIND $sessions AS s
CALL (s) {
  MATCH (e:Episode {tenant: $tenant, scope: s.scope, session_id: s.session_id})
  OPTIONAL MATCH (e)-[old:NEXT]->()
  DELETE old
}
CALL (s) {
  MATCH (e:Episode {tenant: $tenant, scope: s.scope, session_id: s.session_id})
  WITH e ORDER BY e.started_at, e.recorded_at, coalesce(e.seq, 0), e.id
  WITH collect(e) AS chain
  UNWIND range(0, size(chain) - 2) AS i
  WITH chain[i] AS a, chain[i + 1] AS b
  CREATE (a)-[:NEXT]->(b)
  RETURN count(*) AS made
}
RETURN sum(made) AS linked
