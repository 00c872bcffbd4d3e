// params: tenant, contributors
// returns: facts
// A fact citing a digest one of whose members is a forgotten contributor's episode (a
// digest's text is its members', forget/_hidden_episode) cites one member instead, with the
// same link: the latest one a contributor still here told, else one of the forgotten (the
// purge then excises the fact as it would any fact only they support). One, not all: the
// digest was one piece of evidence, and its members as several sessions would raise the
// fact's confidence (and count towards a promotion) at every asOf, through a forget. The
// digest, deleted when the purge ends (compaction/forget_user), leaves no fact without a
// source.
MATCH (d:Episode {tenant: $tenant})
WHERE d.scope IS NOT NULL  // seeks the (tenant, scope) index, not every tenant's episodes
  AND d.digest = true AND any(c IN coalesce(d.contributors, []) WHERE c IN $contributors)
MATCH (f:Fact)-[old:DERIVED_FROM]->(d)
CALL (f, old, d) {
  MATCH (d)-[:DERIVED_FROM]->(m:Episode)
  WITH m ORDER BY coalesce(m.contributor IN $contributors, false), m.started_at DESC, m.id
  LIMIT 1
  MERGE (f)-[n:DERIVED_FROM]->(m)
  ON CREATE SET n = properties(old)
  RETURN count(m) AS members
}
DELETE old
RETURN count(DISTINCT f) AS facts
