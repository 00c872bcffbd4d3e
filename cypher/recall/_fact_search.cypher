// The fact search of recall (facts.cypher alone, search.cypher beside the other kinds):
// `hidden` (forget/_hidden) in scope; answers one row, rows and raw_hits, or none.
CALL () {
  UNWIND $scopes AS fscope
  // A filtered HNSW search costs Neo4j a few ms of CPU even when nothing matches (the
  // most of a recall's, bench/load.py), so a scope with no Fact of the tenant is not
  // searched: one seek on the (tenant, scope) index; every vector hit would pass it.
  WITH fscope WHERE EXISTS { MATCH (x:Fact {tenant: $tenant, scope: fscope}) }
  CALL (fscope) {
    // The hit is named apart from the outer `f` and from the other kinds' searches (search.cypher
    // runs them in one statement): sharing a name trips a planner bug in
    // Neo4j 2026.01 ("key not found: SymbolUse") when SEARCH sits in a UNION branch.
    MATCH (fhit:Fact)
      SEARCH fhit IN (VECTOR INDEX fact_embedding FOR $vector
                     WHERE fhit.tenant = $tenant AND fhit.scope = fscope LIMIT $k) SCORE AS score
    RETURN fhit, score
  }
  RETURN fhit AS f, score AS vscore, null AS kscore
  UNION ALL
  // And the k nearest to the query without the names it mentions when the service scores on
  // that (content_search; services/recall/service.py says why both): a speaker the question
  // names labels every turn of theirs, which fill the first search's k nearest.
  // Named apart from the first branch's, like `fhit` above.
  UNWIND $scopes AS fscope2
  WITH fscope2 WHERE $content_search AND $content_vector IS NOT NULL
    AND EXISTS { MATCH (x2:Fact {tenant: $tenant, scope: fscope2}) }
  CALL (fscope2) {
    MATCH (fhit2:Fact)
      SEARCH fhit2 IN (VECTOR INDEX fact_embedding FOR $content_vector
                      WHERE fhit2.tenant = $tenant AND fhit2.scope = fscope2 LIMIT $k)
    RETURN fhit2
  }
  RETURN fhit2 AS f, null AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', '+ft_kind:fact^0 ' + $lucene, {limit: $k}) YIELD node, score
  // The Lucene scope clause already confines hits; this re-check is defence in depth.
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS f, null AS vscore, score AS kscore
}
WITH hidden, f, max(vscore) AS vscore, max(kscore) AS kscore
// Both searches pick their top k BEFORE the filter below: when the filter leaves fewer rows
// than wanted and the searches were saturated (raw_hits >= k), the caller asks again with a
// larger k. A long version history can otherwise crowd every current fact out.
WITH hidden, collect([f, vscore, kscore]) AS hits
CALL (hits, hidden) {
  UNWIND hits AS cand
  WITH hidden, cand[0] AS f, cand[1] AS vscore, cand[2] AS kscore
  WHERE ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
    // Awaiting verification as it stood at as_of (flagged later: not yet; verified later: still).
    AND ($include_unverified OR NOT
#include fact/_flagged_at
        )
    AND ($tiers IS NULL OR f.tier IN $tiers)
    AND NOT
#include forget/_hidden_fact(f)
  // In force at (as_of, valid_at): the version has a segment of the stored timeline there.
  WITH hidden, f, vscore, kscore, EXISTS {
    MATCH (s:Segment)-[:WINS]->(f)
    WHERE true
#include timeline/_in_force
  } AS in_force
  // While a forget runs, a slot one of whose versions cites a forgotten contributor is
  // resolved by the reader as the purge will leave it (repositories/shadow.py): the candidate
  // may answer there whether or not the stored timeline says so today (a value their version
  // superseded, or one their ended claim cut, does again).
  WITH hidden, f, vscore, kscore, in_force,
       CASE WHEN size(hidden) = 0 THEN false ELSE EXISTS {
         MATCH (w:Fact {tenant: $tenant, scope: f.scope, subject: f.subject,
                        predicate: f.predicate})
         WHERE
#include forget/_touched_fact(w)
       } END AS touched
  WHERE in_force OR touched
  RETURN collect({
    id: f.id, text: f.text, tier: f.tier, tier_rank: f.tier_rank,
    touched: CASE WHEN touched THEN {scope: f.scope, subject: f.subject, predicate: f.predicate}
             END,
    // Worded by a forgotten contributor (forget/_their_text): the service scores it on the
    // triple's neutral wording instead (services/recall/withheld.py says why).
    withheld: (
#include forget/_their_text(f)
              ) IS NULL,
    subject_name: f.subject_name, object: f.object,
    confidence: f.confidence, subject: f.subject, predicate: f.predicate,
    fresh_ms: coalesce(f.valid_from, f.recorded_at).epochMillis,
    similarity: coalesce(vscore, vector.similarity.cosine(f.embedding, $vector)),
    // Similarity to the query without the entity names it mentions (services/recall/ranking.py).
    content: CASE WHEN $content_vector IS NULL THEN null
                  ELSE vector.similarity.cosine(f.embedding, $content_vector) END,
    keyword: kscore,
    // Usage for salience (services/recall/salience.py): last retrieval, outcome reports.
    last_retrieved_ms: f.last_retrieved_at.epochMillis, recorded_ms: f.recorded_at.epochMillis,
    harmful: f.harmful_count, helpful: f.helpful_count
  }) AS rows
}
RETURN rows, size(hits) AS raw_hits
