// The memo search of recall (memos.cypher alone, search.cypher beside the other kinds):
// `hidden` (forget/_hidden) in scope; answers one row, rows and raw_hits, or none.
CALL () {
  UNWIND $scopes AS mscope
  // A scope with no memo of the tenant is not searched (recall/_procedure_search: a
  // filtered HNSW search costs a few ms even when nothing matches); one seek on memo_scope
  // (tenant, scope, kind): the planner uses a composite index only with a predicate on every part.
  WITH mscope WHERE EXISTS { MATCH (x:Memo {tenant: $tenant, scope: mscope}) WHERE x.kind IS NOT NULL }
  CALL (mscope) {
    MATCH (mhit:Memo)
      SEARCH mhit IN (VECTOR INDEX memo_embedding FOR $vector
                     WHERE mhit.tenant = $tenant AND mhit.scope = mscope LIMIT $k) SCORE AS score
    RETURN mhit, score
  }
  RETURN mhit AS m, score AS vscore, null AS kscore
  UNION ALL
  // And the k nearest to the query without the names it mentions when the service scores on
  // that (content_search; services/recall/service.py says why both): a speaker the question
  // names labels every turn of theirs, which fill the first search's k nearest.
  // Named apart from the first branch's, like `mhit` above.
  UNWIND $scopes AS mscope2
  WITH mscope2 WHERE $content_search AND $content_vector IS NOT NULL
    AND EXISTS { MATCH (x2:Memo {tenant: $tenant, scope: mscope2}) WHERE x2.kind IS NOT NULL }
  CALL (mscope2) {
    MATCH (mhit2:Memo)
      SEARCH mhit2 IN (VECTOR INDEX memo_embedding FOR $content_vector
                      WHERE mhit2.tenant = $tenant AND mhit2.scope = mscope2 LIMIT $k)
    RETURN mhit2
  }
  RETURN mhit2 AS m, null AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:memo^0 ' + $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS m, null AS vscore, score AS kscore
}
WITH hidden, m, max(vscore) AS vscore, max(kscore) AS kscore
// Both searches pick their top k BEFORE the filter below (the caller widens k when the
// filter left too few and the searches were saturated, as for the other kinds).
WITH hidden, collect([m, vscore, kscore]) AS hits
CALL (hidden, hits) {
  UNWIND hits AS cand
  WITH hidden, cand[0] AS m, cand[1] AS vscore, cand[2] AS kscore
  WHERE m.recorded_at <= $as_of
    AND (m.kind <> 'todo' OR m.closed_at IS NULL OR m.closed_at > $as_of)
    AND ($include_expired OR m.expires_at IS NULL OR m.expires_at > $as_of)
    AND ($tiers IS NULL OR m.tier IN $tiers)  // a memo carries its tier, as a fact does
    AND EXISTS { (m)-[:DERIVED_FROM]->(:Episode) }
    AND ((m.kind = 'event' AND m.at <= $valid_at)
         OR EXISTS { MATCH (m)-[:DERIVED_FROM]->(told:Episode)
                     WHERE told.started_at IS NULL OR told.started_at <= $valid_at })
    AND NOT
#include forget/_hidden_fact(m)
  RETURN collect({
    id: m.id, text: m.text, memo_kind: m.kind, confidence: m.confidence, tier: m.tier,
    fresh_ms: coalesce(m.at, m.recorded_at).epochMillis,
    last_retrieved_ms: m.last_retrieved_at.epochMillis, recorded_ms: m.recorded_at.epochMillis,
    harmful: m.harmful_count, helpful: m.helpful_count,
    similarity: coalesce(vscore, vector.similarity.cosine(m.embedding, $vector)),
    content: CASE WHEN $content_vector IS NULL THEN null
                  ELSE vector.similarity.cosine(m.embedding, $content_vector) END,
    keyword: kscore
  }) AS rows
}
RETURN rows, size(hits) AS raw_hits
