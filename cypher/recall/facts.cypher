// params: tenant, scopes, vector, content_vector, k, lucene, statuses, include_candidates, as_of, valid_at, include_expired, include_unverified, tiers
// returns: rows, raw_hits
// Hybrid candidates for recall: the k nearest facts per scope from the vector index (the
// tenant/scope filter runs inside the HNSW search) plus the k best full-text hits (scoped by
// the opaque ft_scope token inside the Lucene query). The in-force filter is the one of
// fact.in_force_*, applied after the search. Keyword-only hits get their cosine computed here, so
// every candidate carries a true vector score. Scores are raw: the service normalises them.
// Only what scoring needs comes back (times as epoch millis: cheap to decode); the
// survivors are hydrated by recall.hydrate.
CYPHER 25
CALL () {
  UNWIND $scopes AS scope
  CALL (scope) {
    // The hit is named apart from the outer `f`: reusing the name trips a planner bug in
    // Neo4j 2026.01 ("key not found: SymbolUse") when SEARCH sits in a UNION branch.
    MATCH (hit:Fact)
      SEARCH hit IN (VECTOR INDEX fact_embedding FOR $vector
                     WHERE hit.tenant = $tenant AND hit.scope = scope LIMIT $k) SCORE AS score
    RETURN hit, score
  }
  RETURN hit AS f, score AS vscore, null AS kscore
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text', $lucene, {limit: $k}) YIELD node, score
  // The Lucene scope clause already confines hits; this re-check is defence in depth.
  WITH node, score WHERE node.tenant = $tenant AND node.scope IN $scopes
  RETURN node AS f, null AS vscore, score AS kscore
}
WITH f, max(vscore) AS vscore, max(kscore) AS kscore
// Both searches pick their top k BEFORE the filter below: when the filter leaves fewer rows
// than wanted and the searches were saturated (raw_hits >= k), the caller asks again with a
// larger k. A long version history can otherwise crowd every current fact out.
WITH collect([f, vscore, kscore]) AS hits
CALL (hits) {
  UNWIND hits AS cand
  WITH cand[0] AS f, cand[1] AS vscore, cand[2] AS kscore
  WHERE true
    AND f.status IN $statuses
    AND ($include_candidates OR f.activated_at <= $as_of)
    AND f.recorded_at <= $as_of
    AND (f.retracted_at IS NULL OR f.retracted_at > $as_of)
    // Another version of the slot believed at as_of and valid at valid_at beats this one (the
    // rule in the header); for a many-valued predicate only versions of the same object compete.
    // Each branch seeks its own index: a many-valued slot can hold hundreds of objects.
    AND (coalesce(f.cardinality, 'one') = 'many' OR NOT EXISTS {
          MATCH (g:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                         predicate: f.predicate})
          USING INDEX g:Fact(tenant, scope, subject, predicate)
          WHERE g.id <> f.id
            AND g.recorded_at <= $as_of
            AND g.status <> 'rejected'
            AND ($include_candidates OR g.activated_at <= $as_of)
            AND (g.retracted_at IS NULL OR g.retracted_at > $as_of)
            AND (g.valid_from IS NULL OR g.valid_from <= $valid_at)
            // A version of the same object cuts f from its start even once it has ended
            // ("had Rex until March" ends "has Rex"); another object only while it holds
            // ("in Berlin for 2024" interrupts "in Paris since 2018", it does not end it).
            AND (g.valid_to IS NULL OR $valid_at < g.valid_to OR g.object_key = f.object_key)
            AND CASE
              // f's start nobody stated (it is when f was said): any version said no earlier
              // beats it (told_at; said at the same moment: the one recorded last).
              WHEN NOT coalesce(f.valid_from_stated, false)
                   AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at))
                   AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                        OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                            AND (g.recorded_at > f.recorded_at
                                 OR (g.recorded_at = f.recorded_at AND g.version > f.version))))
                THEN true
              // Likewise an undated g never beats a version said no earlier than it.
              WHEN NOT coalesce(g.valid_from_stated, false)
                   AND (f.valid_to IS NULL OR f.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                   AND (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                        OR (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                            AND (f.recorded_at > g.recorded_at
                                 OR (f.recorded_at = g.recorded_at AND f.version > g.version))))
                THEN false
              // Otherwise the later start wins; on the same start, the later record.
              ELSE coalesce(g.valid_from, g.recorded_at) > coalesce(f.valid_from, f.recorded_at)
                   OR (coalesce(g.valid_from, g.recorded_at) = coalesce(f.valid_from, f.recorded_at)
                       AND (g.recorded_at > f.recorded_at
                            OR (g.recorded_at = f.recorded_at AND g.version > f.version)))
            END
            // Across dated and undated versions only each kind's best competes: compared
            // pairwise, mixed claims can beat each other in a circle and leave no answer.
            AND (coalesce(g.valid_from_stated, false) = coalesce(f.valid_from_stated, false)
                 // an ended version of f's object cuts f whatever its kind
                 OR g.valid_to <= $valid_at
                 OR NOT EXISTS {
                   MATCH (h:Fact {tenant: g.tenant, scope: g.scope, subject: g.subject,
                                  predicate: g.predicate})
                   USING INDEX h:Fact(tenant, scope, subject, predicate)
                   WHERE h.id <> g.id
                     AND coalesce(h.valid_from_stated, false) = coalesce(g.valid_from_stated, false)
                     AND h.recorded_at <= $as_of
                     AND h.status <> 'rejected'
                     AND ($include_candidates OR h.activated_at <= $as_of)
                     AND (h.retracted_at IS NULL OR h.retracted_at > $as_of)
                     AND (h.valid_from IS NULL OR h.valid_from <= $valid_at)
                     AND (h.valid_to IS NULL OR $valid_at < h.valid_to)
                     AND CASE
                       WHEN NOT coalesce(g.valid_from_stated, false)
                            AND (h.valid_to IS NULL OR h.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                            AND (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                 OR (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                     AND (h.recorded_at > g.recorded_at
                                          OR (h.recorded_at = g.recorded_at AND h.version > g.version))))
                         THEN true
                       WHEN NOT coalesce(h.valid_from_stated, false)
                            AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at))
                            AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                 OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                     AND (g.recorded_at > h.recorded_at
                                          OR (g.recorded_at = h.recorded_at AND g.version > h.version))))
                         THEN false
                       ELSE coalesce(h.valid_from, h.recorded_at) > coalesce(g.valid_from, g.recorded_at)
                            OR (coalesce(h.valid_from, h.recorded_at) = coalesce(g.valid_from, g.recorded_at)
                                AND (h.recorded_at > g.recorded_at
                                     OR (h.recorded_at = g.recorded_at AND h.version > g.version)))
                     END
                 })
        })
    AND (coalesce(f.cardinality, 'one') <> 'many' OR NOT EXISTS {
          MATCH (g:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                         predicate: f.predicate, object_key: f.object_key})
          USING INDEX g:Fact(tenant, scope, subject, predicate, object_key)
          WHERE g.id <> f.id
            AND g.recorded_at <= $as_of
            AND g.status <> 'rejected'
            AND ($include_candidates OR g.activated_at <= $as_of)
            AND (g.retracted_at IS NULL OR g.retracted_at > $as_of)
            AND (g.valid_from IS NULL OR g.valid_from <= $valid_at)
            // A version of the same object cuts f from its start even once it has ended
            // ("had Rex until March" ends "has Rex"); another object only while it holds
            // ("in Berlin for 2024" interrupts "in Paris since 2018", it does not end it).
            AND (g.valid_to IS NULL OR $valid_at < g.valid_to OR g.object_key = f.object_key)
            AND CASE
              // f's start nobody stated (it is when f was said): any version said no earlier
              // beats it (told_at; said at the same moment: the one recorded last).
              WHEN NOT coalesce(f.valid_from_stated, false)
                   AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at))
                   AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                        OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                            AND (g.recorded_at > f.recorded_at
                                 OR (g.recorded_at = f.recorded_at AND g.version > f.version))))
                THEN true
              // Likewise an undated g never beats a version said no earlier than it.
              WHEN NOT coalesce(g.valid_from_stated, false)
                   AND (f.valid_to IS NULL OR f.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                   AND (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                        OR (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                            AND (f.recorded_at > g.recorded_at
                                 OR (f.recorded_at = g.recorded_at AND f.version > g.version))))
                THEN false
              // Otherwise the later start wins; on the same start, the later record.
              ELSE coalesce(g.valid_from, g.recorded_at) > coalesce(f.valid_from, f.recorded_at)
                   OR (coalesce(g.valid_from, g.recorded_at) = coalesce(f.valid_from, f.recorded_at)
                       AND (g.recorded_at > f.recorded_at
                            OR (g.recorded_at = f.recorded_at AND g.version > f.version)))
            END
            // Across dated and undated versions only each kind's best competes: compared
            // pairwise, mixed claims can beat each other in a circle and leave no answer.
            AND (coalesce(g.valid_from_stated, false) = coalesce(f.valid_from_stated, false)
                 // an ended version of f's object cuts f whatever its kind
                 OR g.valid_to <= $valid_at
                 OR NOT EXISTS {
                   MATCH (h:Fact {tenant: g.tenant, scope: g.scope, subject: g.subject,
                                  predicate: g.predicate, object_key: g.object_key})
                   USING INDEX h:Fact(tenant, scope, subject, predicate, object_key)
                   WHERE h.id <> g.id
                     AND coalesce(h.valid_from_stated, false) = coalesce(g.valid_from_stated, false)
                     AND h.recorded_at <= $as_of
                     AND h.status <> 'rejected'
                     AND ($include_candidates OR h.activated_at <= $as_of)
                     AND (h.retracted_at IS NULL OR h.retracted_at > $as_of)
                     AND (h.valid_from IS NULL OR h.valid_from <= $valid_at)
                     AND (h.valid_to IS NULL OR $valid_at < h.valid_to)
                     AND CASE
                       WHEN NOT coalesce(g.valid_from_stated, false)
                            AND (h.valid_to IS NULL OR h.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                            AND (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                 OR (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                     AND (h.recorded_at > g.recorded_at
                                          OR (h.recorded_at = g.recorded_at AND h.version > g.version))))
                         THEN true
                       WHEN NOT coalesce(h.valid_from_stated, false)
                            AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at))
                            AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                 OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                     AND (g.recorded_at > h.recorded_at
                                          OR (g.recorded_at = h.recorded_at AND g.version > h.version))))
                         THEN false
                       ELSE coalesce(h.valid_from, h.recorded_at) > coalesce(g.valid_from, g.recorded_at)
                            OR (coalesce(h.valid_from, h.recorded_at) = coalesce(g.valid_from, g.recorded_at)
                                AND (h.recorded_at > g.recorded_at
                                     OR (h.recorded_at = g.recorded_at AND h.version > g.version)))
                     END
                 })
        })
    AND (f.valid_from IS NULL OR f.valid_from <= $valid_at)
    AND (f.valid_to IS NULL OR $valid_at < f.valid_to)
    AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
    // Awaiting verification as it stood at as_of (flagged later: not yet; verified later: still).
    AND ($include_unverified OR NOT CASE
             WHEN f.flag_log_at IS NOT NULL
               THEN coalesce(last([i IN range(0, size(f.flag_log_at) - 1)
                                   WHERE f.flag_log_at[i] <= $as_of | f.flag_log[i]]), false)
             WHEN f.flagged_at > $as_of THEN false
             WHEN f.verified_at > $as_of AND f.flagged_at IS NOT NULL THEN true
             ELSE coalesce(f.needs_verification, false) END)
    AND ($tiers IS NULL OR f.tier IN $tiers)
  RETURN collect({
    id: f.id, text: f.text, tier: f.tier, tier_rank: f.tier_rank,
    confidence: f.confidence, subject: f.subject, predicate: f.predicate,
    fresh_ms: coalesce(f.valid_from, f.recorded_at).epochMillis,
    similarity: coalesce(vscore, vector.similarity.cosine(f.embedding, $vector)),
    // Similarity to the query without the entity names it mentions (services/ranking.py).
    content: CASE WHEN $content_vector IS NULL THEN null
                  ELSE vector.similarity.cosine(f.embedding, $content_vector) END,
    keyword: kscore
  }) AS rows
}
RETURN rows, size(hits) AS raw_hits
