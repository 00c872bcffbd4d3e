// params: tenant, id, episode_id, success, now
// returns: procedure_id, episode_id
// One episode is one piece of evidence, and its verdict the one told last; a verdict told
// again differently is a new edge beside the old one, never the old one rewritten, so that
// the counts a read as of a moment between the two found stay (procedure/_verdicts picks
// each episode's latest told by then). The same verdict told again changes nothing.
MATCH (p:Procedure {id: $id})
WHERE p.tenant = $tenant
MATCH (e:Episode {id: $episode_id})
WHERE e.tenant = $tenant
OPTIONAL CALL (p, e) {
  MATCH (p)-[r:EVIDENCED_BY]->(e)
  RETURN r.success AS told
  ORDER BY coalesce(r.at, p.created_at) DESC
  LIMIT 1
}
CALL (p, e, told) {
  WITH p, e WHERE told IS NULL OR told <> $success
  CREATE (p)-[r:EVIDENCED_BY]->(e)
  SET r.success = $success, r.at = $now
}
RETURN p.id AS procedure_id, e.id AS episode_id
