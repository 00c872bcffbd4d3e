// params: tenant, links, closes, excised
// returns: reopened
// Rewrites the chains around excised versions as if they had never been written (the plan:
// services/forget/purge.plan_relinks; the in-flight view, repositories/shadow.py, reads the
// same):
//  * links: each surviving version that linked to an excised one links to the nearest
//    surviving older version instead (older null: it supersedes nothing any more);
//  * closes: a surviving version an excised one had ended (`via`, still its superseded_by) is
//    ended by the nearest surviving version along the enders (`closer`) if that one was ever
//    served as truth, from when it was first served; else it is current again (`reopened`).
//    A version ended by a version that survives is left as it is.
CALL () {
  UNWIND $links AS link
  MATCH (n:Fact {id: link.newer})
  WHERE n.tenant = $tenant
  OPTIONAL MATCH (s:Fact {id: link.older})
  WHERE s.tenant = $tenant AND NOT s.id IN $excised
  FOREACH (_ IN CASE WHEN s IS NULL THEN [1] ELSE [] END | SET n.supersedes = null)
  FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END |
    MERGE (n)-[:SUPERSEDES]->(s)
    SET n.supersedes = s.id)
  RETURN count(*) AS linked
}
CALL () {
  UNWIND $closes AS c
  MATCH (s:Fact {id: c.older})
  WHERE s.tenant = $tenant AND s.superseded_by = c.via
  MATCH (k:Fact {id: c.closer})
  WHERE k.tenant = $tenant AND k.activated_at IS NOT NULL AND NOT k.id IN $excised
#include fact/_ended_by(s)
  RETURN count(*) AS closed
}
CALL () {
  UNWIND $closes AS c
  MATCH (s:Fact {id: c.older})
  WHERE s.tenant = $tenant AND s.superseded_by = c.via
    AND NOT EXISTS { MATCH (k:Fact {id: c.closer})
                     WHERE k.tenant = $tenant AND k.activated_at IS NOT NULL
                       AND NOT k.id IN $excised }
#include fact/_reopen(s)
  RETURN collect(s.id) AS reopened
}
RETURN reopened
