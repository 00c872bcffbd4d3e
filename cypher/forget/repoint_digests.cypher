// params: tenant, contributors
// returns: facts
// A fact citing a digest one of whose members is a forgotten contributor's episode (a
// digest's text is its members', forget/_hidden_episode) cites the members instead, with the
// same link: the purge then treats it as any fact citing their episodes (excised when only
// theirs support it, otherwise their evidence removed and its confidence recomputed from the
// members left), and the digest, deleted when the purge ends (compaction/forget_user), leaves
// no fact without a source.
MATCH (d:Episode {tenant: $tenant})
WHERE d.scope IS NOT NULL  // seeks the (tenant, scope) index, not every tenant's episodes
  AND d.digest = true AND any(c IN coalesce(d.contributors, []) WHERE c IN $contributors)
MATCH (f:Fact)-[old:DERIVED_FROM]->(d)
CALL (f, old, d) {
  MATCH (d)-[:DERIVED_FROM]->(m:Episode)
  MERGE (f)-[n:DERIVED_FROM]->(m)
  ON CREATE SET n = properties(old)
  RETURN count(m) AS members
}
DELETE old
RETURN count(DISTINCT f) AS facts
