// params: tenant, contributors, limit, ends
// returns: scopes
// Every scope the next purge batch can write in through its facts, read before it takes their
// locks (so writers of the tenant's other scopes never wait for a purge): the scopes of the
// facts the batch takes (forget/batch_facts, the same first `limit` with their supersession
// chains) and of the conclusions drawn from any of them (flagged or re-judged). The
// contributors' episodes and procedures are forget/episode_scopes. Writes citing the
// contributors are refused from phase 1 on, so the batch can only shrink between this read
// and the locks.
#include forget/_next_facts
WITH DISTINCT f LIMIT $limit
MATCH (f)-[:SUPERSEDES*0..]-(g:Fact)
WITH DISTINCT g
CALL (g) {
  OPTIONAL MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(g)
  RETURN collect(DISTINCT d.scope) AS below
}
UNWIND [g.scope] + below AS scope
WITH scope WHERE scope IS NOT NULL
RETURN collect(DISTINCT scope) AS scopes
