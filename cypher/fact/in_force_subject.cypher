// params: tenant, scopes, subject, statuses, include_candidates, as_of, valid_at, include_expired, needs_verification, after_recorded, after_id, limit
// returns: fact
// Every predicate of one subject.
// In force at (as_of, valid_at) -- the same rule in every bitemporal read:
//  * believed at as_of: recorded by then, not retracted by then, active by then (a candidate
//    only when asked for; activated_at is when it became active), not past its TTL;
//  * valid at valid_at: valid_from <= valid_at < valid_to (half-open, open ends are null);
//  * the newest such claim wins its slot: a superseded version still answers for moments
//    where no later-recorded version (believed at as_of) is valid; writes keep a slot's
//    current versions from overlapping in valid time (services/validity.py).
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.subject = $subject AND f.scope IN $scopes
  AND f.status IN $statuses
  AND ($include_candidates OR f.activated_at <= $as_of)
  AND f.recorded_at <= $as_of
  AND (f.retracted_at IS NULL OR f.retracted_at > $as_of)
  AND (f.superseded_at IS NULL OR f.superseded_at > $as_of OR NOT EXISTS {
        MATCH (g:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                       predicate: f.predicate})
        WHERE (g.recorded_at > f.recorded_at
               OR (g.recorded_at = f.recorded_at AND g.version > f.version))
          AND g.recorded_at <= $as_of
          AND (g.cardinality = 'one' OR g.object_key = f.object_key)
          AND g.status <> 'rejected'
          AND ($include_candidates OR g.activated_at <= $as_of)
          AND (g.retracted_at IS NULL OR g.retracted_at > $as_of)
          AND (g.valid_from IS NULL OR g.valid_from <= $valid_at)
          AND (g.valid_to IS NULL OR $valid_at < g.valid_to)
      })
  AND (f.valid_from IS NULL OR f.valid_from <= $valid_at)
  AND (f.valid_to IS NULL OR $valid_at < f.valid_to)
  AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
  AND ($needs_verification IS NULL OR f.needs_verification = $needs_verification)
  AND ($after_recorded IS NULL OR f.recorded_at < $after_recorded
       OR (f.recorded_at = $after_recorded AND f.id < $after_id))
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at DESC, f.id DESC
LIMIT $limit
