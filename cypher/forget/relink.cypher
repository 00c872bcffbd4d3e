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
  WITH s, k,
       [i IN range(0, size(coalesce(s.changes, [])) - 1) WHERE s.changes[i] <> 'superseded'] AS keep
  // Its supersession in the change log moves to when the closer was first served.
  SET s.changes_at = [i IN keep | s.changes_at[i]] + k.activated_at,
      s.changes = [i IN keep | s.changes[i]] + 'superseded',
      s.superseded_at = k.activated_at, s.superseded_by = k.id,
      s.successor_valid_from = k.valid_from
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
