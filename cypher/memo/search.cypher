// params: tenant, scopes, vector, lucene, k, kinds, statuses, now
// returns: memo, provenance, similarity, keyword
// Hybrid candidates among memos: the vector index filtered by tenant and scope inside the
// index, plus full-text on the opaque scope token (as recall does for facts and episodes).
CYPHER 25
#include forget/_hidden
CALL () {
  UNWIND $scopes AS scope
  CALL (scope) {
    MATCH (hit:Memo)
      SEARCH hit IN (VECTOR INDEX memo_embedding FOR $vector
                     WHERE hit.tenant = $tenant AND hit.scope = scope LIMIT $k) SCORE AS score
    RETURN hit, score
  }
  RETURN hit AS m, score AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:memo^0 ' + $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS m, null AS vscore, score AS kscore
}
WITH hidden, m, max(vscore) AS vscore, max(kscore) AS kscore
WHERE m.kind IN $kinds AND (m.status IS NULL OR m.status IN $statuses)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  // A memo whose episode is gone (its contributor forgotten) is never served.
  AND EXISTS { (m)-[:DERIVED_FROM]->(:Episode) }
  AND NOT
#include forget/_hidden_fact(m)
OPTIONAL MATCH (m)-[d:DERIVED_FROM]->(e:Episode)
WITH m, vscore, kscore, collect(CASE WHEN e IS NULL THEN null ELSE {
       episode_id: e.id, user_id: e.user_id, session_id: e.session_id, turns: d.turns
     } END) AS provenance
RETURN m {.*, embedding: null} AS memo, provenance,
       coalesce(vscore, vector.similarity.cosine(m.embedding, $vector)) AS similarity,
       kscore AS keyword
