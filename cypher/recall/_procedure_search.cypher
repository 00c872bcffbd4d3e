// The procedure search of recall (procedures.cypher alone, search.cypher beside the other kinds):
// `hidden` (forget/_hidden) in scope; answers one row, rows and raw_hits, or none.
CALL () {
  UNWIND $scopes AS pscope
  // A filtered HNSW search costs Neo4j a few ms of CPU even when nothing matches (the
  // most of a recall's, bench/load.py), so a scope with no Procedure of the tenant is not
  // searched: one seek on the (tenant, scope) index; every vector hit would pass it.
  WITH pscope WHERE EXISTS { MATCH (x:Procedure {tenant: $tenant, scope: pscope}) }
  CALL (pscope) {
    // The hit is named apart from the outer `p` and from the other kinds' searches (search.cypher
    // runs them in one statement): sharing a name trips a planner bug in
    // Neo4j 2026.01 ("key not found: SymbolUse") when SEARCH sits in a UNION branch.
    MATCH (phit:Procedure)
      SEARCH phit IN (VECTOR INDEX procedure_embedding FOR $vector
                     WHERE phit.tenant = $tenant AND phit.scope = pscope LIMIT $k) SCORE AS score
    RETURN phit, score
  }
  RETURN phit AS p, score AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:procedure^0 ' + $lucene, {limit: $k}) YIELD node, score
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS p, null AS vscore, score AS kscore
  UNION ALL
  // A named intent is an exact lookup: its procedures qualify whatever the query's wording.
  MATCH (p:Procedure)
  WHERE $intent IS NOT NULL AND p.tenant = $tenant AND p.intent = $intent
    AND p.scope IN $scopes
  RETURN p, null AS vscore, null AS kscore
}
WITH hidden, p, max(vscore) AS vscore, max(kscore) AS kscore
// Both searches pick their top k BEFORE the filter below: when the filter leaves fewer rows
// than wanted and the searches were saturated (raw_hits >= k), the caller asks again with a
// larger k. A long version history can otherwise crowd every current fact out.
WITH hidden, collect([p, vscore, kscore]) AS hits
CALL (hidden, hits) {
  UNWIND hits AS cand
  WITH hidden, cand[0] AS p, cand[1] AS vscore, cand[2] AS kscore
  WHERE p.created_at <= $as_of
    AND (p.superseded_at IS NULL OR p.superseded_at > $as_of)
    AND ($intent IS NULL OR p.intent = $intent)
    AND ($role IS NULL OR p.role = $role)
    AND NOT
#include forget/_hidden_procedure(p)
  // Served by the status it had at as_of, ranked by its evidence and freshness then
  // (procedure/_as_of, the one place that reads a procedure as of a moment).
#include procedure/_as_of(p)
  WITH p, vscore, kscore, then WHERE then.status IN $procedure_statuses
  RETURN collect({
    id: p.id, text: p.text, success_count: then.success_count,
    failure_count: then.failure_count, fresh_ms: then.updated_at.epochMillis,
    similarity: coalesce(vscore, vector.similarity.cosine(p.embedding, $vector)),
    content: CASE WHEN $content_vector IS NULL THEN null
                  ELSE vector.similarity.cosine(p.embedding, $content_vector) END,
    keyword: kscore
  }) AS rows
}
RETURN rows, size(hits) AS raw_hits
