// params: tenant, scopes, ids, vector, as_of, valid_at
// returns: of, row
// The episode that follows each of these (their NEXT in the session), as a lean candidate row
// (the shape of recall.episodes' rows) with its cosine to the query; in force at as_of /
// valid_at like any episode candidate, and only in the scopes asked for.
#include forget/_hidden
UNWIND $ids AS id
MATCH (q:Episode {id: id})-[:NEXT]->(e:Episode)
WHERE q.tenant = $tenant AND e.tenant = $tenant AND e.scope IN $scopes
  AND e.recorded_at <= $as_of
  AND (e.started_at IS NULL OR e.started_at <= $valid_at)
  AND NOT
#include forget/_hidden_episode(e)
RETURN q.id AS of, {
  id: e.id, text: e.text, confidence: e.confidence,
  fresh_ms: coalesce(e.ended_at, e.started_at, e.recorded_at).epochMillis,
  similarity: vector.similarity.cosine(e.embedding, $vector),
  content: null, keyword: null
} AS row
