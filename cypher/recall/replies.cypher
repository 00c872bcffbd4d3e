// params: tenant, scopes, ids, vector, content_vector, as_of, valid_at
// returns: of, row
// The episode that follows each of these (their NEXT in the session), as a lean candidate row
// (the shape of recall.episodes' rows) with its cosine to the query (and to the query without
// its names, when the service scores on that); in force at as_of / valid_at like any episode
// candidate (not one a digest stands for since), only in the scopes asked for, with its usage:
// a reply reported harmful is demoted like any memory.
#include forget/_hidden
UNWIND $ids AS id
MATCH (q:Episode {id: id})-[:NEXT]->(e:Episode)
WHERE q.tenant = $tenant AND e.tenant = $tenant AND e.scope IN $scopes
  AND e.recorded_at <= $as_of
  AND (e.started_at IS NULL OR e.started_at <= $valid_at)
  AND (e.compacted_into IS NULL OR e.compacted_at > $as_of)
  AND NOT
#include forget/_hidden_episode(e)
RETURN q.id AS of, {
  id: e.id, text: e.text, confidence: e.confidence,
  fresh_ms: coalesce(e.ended_at, e.started_at, e.recorded_at).epochMillis,
  similarity: vector.similarity.cosine(e.embedding, $vector),
  content: CASE WHEN $content_vector IS NULL THEN null
                ELSE vector.similarity.cosine(e.embedding, $content_vector) END,
  keyword: null,
  last_retrieved_ms: e.last_retrieved_at.epochMillis, recorded_ms: e.recorded_at.epochMillis,
  harmful: e.harmful_count, helpful: e.helpful_count
} AS row
