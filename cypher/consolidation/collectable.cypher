// params: tenant, scopes, now, max_confidence, unused_days
// returns: id, confidence, last_used
// Garbage for the decay step: live facts of these scopes believed only weakly (confidence
// below max_confidence) that nobody retrieved for unused_days (never retrieved: counted from
// when they were recorded).
MATCH (f:Fact {tenant: $tenant})
WHERE f.scope IN $scopes AND f.status IN ['active', 'candidate']
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL AND f.rejected_at IS NULL
  AND coalesce(f.confidence, 0.0) < $max_confidence
  AND coalesce(f.last_retrieved_at, f.recorded_at) <= $now - duration({days: $unused_days})
RETURN f.id AS id, f.confidence AS confidence,
       toString(coalesce(f.last_retrieved_at, f.recorded_at)) AS last_used
ORDER BY id
