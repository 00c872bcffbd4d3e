// params: tenant, scopes, subject, predicate, statuses, as_of, valid_at, include_expired, needs_verification, after_recorded, after_id, limit
// returns: fact
// One (subject, predicate) slot: seeks the slot index.
// Bitemporal read. A version is in force at (as_of, valid_at) when
//  * belief: recorded by as_of and not retracted by then; if superseded by then, only the part
//    of its validity before its successor's validFrom is still believed;
//  * validity: valid_from <= valid_at < valid_to (half-open, open ends are null).
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.scope IN $scopes AND f.subject = $subject
  AND f.predicate = $predicate
  AND f.status IN $statuses
  AND f.recorded_at <= $as_of
  AND (f.retracted_at IS NULL OR f.retracted_at > $as_of)
  AND (f.superseded_at IS NULL OR f.superseded_at > $as_of
       OR $valid_at < f.successor_valid_from)
  AND (f.valid_from IS NULL OR f.valid_from <= $valid_at)
  AND (f.valid_to IS NULL OR $valid_at < f.valid_to)
  AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
  AND ($needs_verification IS NULL OR f.needs_verification = $needs_verification)
  AND ($after_recorded IS NULL OR f.recorded_at < $after_recorded
       OR (f.recorded_at = $after_recorded AND f.id < $after_id))
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at DESC, f.id DESC
LIMIT $limit
