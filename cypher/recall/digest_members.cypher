// params: tenant, scopes, ids, vector, content_vector, lucene, k, as_of, valid_at
// returns: of, row
// Coarse to fine: the members of those of these episodes that are consolidation digests, as
// lean candidate rows (the shape of recall.episodes' rows) scored against the query: cosine
// from their own embedding, keyword from the full-text index when they rank among its top k.
// In force at as_of / valid_at like any episode candidate, only in the scopes asked for, and
// never one only a forgotten contributor gave.
CYPHER 25
#include forget/_hidden
CALL () {
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:episode^0 ' + $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.compacted_into IN $ids
  RETURN collect([node.id, score]) AS keyword
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NULL
  RETURN [] AS keyword
}
UNWIND $ids AS id
MATCH (d:Episode {id: id})-[:DERIVED_FROM]->(m:Episode)
WHERE d.tenant = $tenant AND d.digest = true AND m.tenant = $tenant AND m.scope IN $scopes
  AND m.recorded_at <= $as_of
  AND (m.started_at IS NULL OR m.started_at <= $valid_at)
  AND NOT
#include forget/_hidden_episode(m)
RETURN d.id AS of, {
  id: m.id, text: m.text, confidence: m.confidence,
  fresh_ms: coalesce(m.ended_at, m.started_at, m.recorded_at).epochMillis,
  similarity: vector.similarity.cosine(m.embedding, $vector),
  content: CASE WHEN $content_vector IS NULL THEN null
                ELSE vector.similarity.cosine(m.embedding, $content_vector) END,
  keyword: head([p IN keyword WHERE p[0] = m.id | p[1]]),
  last_retrieved_ms: m.last_retrieved_at.epochMillis, recorded_ms: m.recorded_at.epochMillis,
  harmful: m.harmful_count, helpful: m.helpful_count
} AS row
