// params: tenant, scopes, vector, k, lucene, as_of, valid_at
// returns: episode, similarity, keyword
// Hybrid candidates among episodes (same shape as recall.facts). An episode is in force once
// recorded (belief time) and once it has started (validity time): "what had happened by T".
CYPHER 25
CALL () {
  UNWIND $scopes AS scope
  CALL (scope) {
    MATCH (e:Episode)
      SEARCH e IN (VECTOR INDEX episode_embedding FOR $vector
                   WHERE e.tenant = $tenant AND e.scope = scope LIMIT $k) SCORE AS score
    RETURN e, score
  }
  RETURN e, score AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('episode_text', $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS e, null AS vscore, score AS kscore
}
WITH e, max(vscore) AS vscore, max(kscore) AS kscore
WHERE e.recorded_at <= $as_of
  AND (e.started_at IS NULL OR e.started_at <= $valid_at)
RETURN e {.*, embedding: null} AS episode,
       coalesce(vscore, vector.similarity.cosine(e.embedding, $vector)) AS similarity,
       kscore AS keyword
