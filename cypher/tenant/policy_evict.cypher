// params: tenant, scopes, capacity, protect, now, actor, recency_days
// returns: id, scope, tier, confidence, status_before, value, reason
// Per-user capacity: in each user scope holding more live memories than the capacity, retract
// the lowest-value ones (lowest tier first; never system/admin tier, never the ids in
// $protect, i.e. the batch's own new facts). The value formula is documented in
// services/trust/policy.py (memory_value): confidence x recency x (1 + ln(1 + retrievals)).
UNWIND $scopes AS scope
// Its versions of any status bound its live memories: a scope holding no more versions than
// the capacity needs no live count. That count is index-only (fact_scope), under a ms; the live
// count reads three properties of every version (4 ms for 600, measured), paid by every write.
WITH scope WHERE COUNT { MATCH (:Fact {tenant: $tenant, scope: scope}) } > $capacity
CALL (scope) {
  MATCH (f:Fact {tenant: $tenant, scope: scope})
  WHERE f.subject IS NOT NULL AND f.predicate IS NOT NULL  // lets fact_slot serve the count
    AND f.superseded_at IS NULL AND f.retracted_at IS NULL
    AND f.status IN ['active', 'candidate', 'expired']
  RETURN count(f) AS live
}
WITH scope, live WHERE live > $capacity
CALL (scope, live) {
  MATCH (f:Fact {tenant: $tenant, scope: scope})
  WHERE f.superseded_at IS NULL AND f.retracted_at IS NULL
    AND f.status IN ['active', 'candidate', 'expired'] AND f.tier_rank < 2
    AND NOT f.id IN $protect
  WITH f, CASE
      WHEN f.status = 'expired' OR (f.expires_at IS NOT NULL AND f.expires_at <= $now) THEN 0.0
      ELSE coalesce(f.confidence, 0.0)
        / (1.0 + toFloat(duration.inSeconds(coalesce(f.last_retrieved_at, f.recorded_at),
                                            $now).seconds) / 86400.0 / $recency_days)
        * (1.0 + log(1.0 + coalesce(f.retrieval_count, 0)))
    END AS value
  ORDER BY f.tier_rank ASC, value ASC, f.recorded_at ASC, f.id ASC
  WITH collect({f: f, value: value}) AS ranked
  UNWIND ranked[0..(live - $capacity)] AS pick
  WITH pick.f AS f, pick.value AS value, pick.f.status AS status_before
  WITH f, value, status_before,
       'evicted: ' + scope + ' held ' + toString(live) + ' live memories, capacity '
       + toString($capacity) + '; lowest value ' + toString(round(value, 4)) + ' at tier '
       + f.tier AS reason
  SET f.retracted_at = $now, f.retracted_by = $actor, f.retract_reason = reason,
      f.status = 'retracted', f.evicted_at = $now,
      f.changes_at = coalesce(f.changes_at, []) + $now,
      f.changes = coalesce(f.changes, []) + 'retracted'
  RETURN f.id AS id, f.tier AS tier, f.confidence AS confidence, status_before, value, reason
}
RETURN id, scope, tier, confidence, status_before, value, reason
