// The episode search of recall (episodes.cypher alone, search.cypher beside the other kinds):
// `hidden` (forget/_hidden) in scope; answers one row, rows and raw_hits, or none.
CALL () {
  UNWIND $scopes AS escope
  // A filtered HNSW search costs Neo4j a few ms of CPU even when nothing matches (the
  // most of a recall's, bench/load.py), so a scope with no Episode of the tenant is not
  // searched: one seek on the (tenant, scope) index; every vector hit would pass it.
  WITH escope WHERE EXISTS { MATCH (x:Episode {tenant: $tenant, scope: escope}) }
  CALL (escope) {
    // The hit is named apart from the outer `e` and from the other kinds' searches (search.cypher
    // runs them in one statement): sharing a name trips a planner bug in
    // Neo4j 2026.01 ("key not found: SymbolUse") when SEARCH sits in a UNION branch.
    MATCH (ehit:Episode)
      SEARCH ehit IN (VECTOR INDEX episode_embedding FOR $vector
                     WHERE ehit.tenant = $tenant AND ehit.scope = escope LIMIT $k) SCORE AS score
    RETURN ehit, score
  }
  RETURN ehit AS e, score AS vscore, null AS kscore
  UNION ALL
  // And the k nearest to the query without the names it mentions when the service scores on
  // that (content_search; services/recall/service.py says why both): a speaker the question
  // names labels every turn of theirs, which fill the first search's k nearest.
  // Named apart from the first branch's, like `ehit` above.
  UNWIND $scopes AS escope2
  WITH escope2 WHERE $content_search AND $content_vector IS NOT NULL
    AND EXISTS { MATCH (x2:Episode {tenant: $tenant, scope: escope2}) }
  CALL (escope2) {
    MATCH (ehit2:Episode)
      SEARCH ehit2 IN (VECTOR INDEX episode_embedding FOR $content_vector
                      WHERE ehit2.tenant = $tenant AND ehit2.scope = escope2 LIMIT $k)
    RETURN ehit2
  }
  RETURN ehit2 AS e, null AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:episode^0 ' + $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS e, null AS vscore, score AS kscore
}
WITH hidden, e, max(vscore) AS vscore, max(kscore) AS kscore
// Both searches pick their top k BEFORE the filter below: when the filter leaves fewer rows
// than wanted and the searches were saturated (raw_hits >= k), the caller asks again with a
// larger k. A long version history can otherwise crowd every current fact out.
WITH hidden, collect([e, vscore, kscore]) AS hits
CALL (hits, hidden) {
  UNWIND hits AS cand
  WITH cand[0] AS e, cand[1] AS vscore, cand[2] AS kscore
  WHERE e.recorded_at <= $as_of
    AND (e.started_at IS NULL OR e.started_at <= $valid_at)
    AND NOT
#include forget/_hidden_episode(e)
    AND (e.compacted_into IS NULL OR e.compacted_at > $as_of)  // a digest stands for it since
  RETURN collect({
    id: e.id, text: e.text, confidence: e.confidence,
    fresh_ms: coalesce(e.ended_at, e.started_at, e.recorded_at).epochMillis,
    similarity: coalesce(vscore, vector.similarity.cosine(e.embedding, $vector)),
    content: CASE WHEN $content_vector IS NULL THEN null
                  ELSE vector.similarity.cosine(e.embedding, $content_vector) END,
    keyword: kscore,
    // A consolidation digest hands its score on to its best member (services/digest_members).
    digest: coalesce(e.digest, false),
    // Usage for salience (services/recall/salience.py): last retrieval, outcome reports.
    last_retrieved_ms: e.last_retrieved_at.epochMillis, recorded_ms: e.recorded_at.epochMillis,
    harmful: e.harmful_count, helpful: e.helpful_count
  }) AS rows
}
RETURN rows, size(hits) AS raw_hits
