// params: tenant, due, now, limit
// returns: id, status_before, expires_at, ttl_days, confidence
// TTL elapsed: the fact is demoted to expired/needs-verification, never served as truth.
// One batch of at most $limit facts due by $due; the caller loops until a batch comes back
// short. The change is stamped $now, the transaction's clock read under its locks (a read as
// of a moment waits on them: services/read_basis.py), not the sweep's due moment.
MATCH (f:Fact {tenant: $tenant})
WHERE f.expires_at <= $due AND f.status IN ['active', 'candidate']
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
WITH f ORDER BY f.expires_at ASC, f.id ASC LIMIT $limit
WITH f, f.status AS status_before
SET f.status = 'expired', f.expired_at = $now, f.needs_verification = true,
    f.verification_reason = 'TTL of ' + coalesce(toString(f.ttl_days), '?')
      + ' days elapsed at ' + toString(f.expires_at) + '; verify before relying on it',
    f.flagged_at = $now,
    f.changes_at = coalesce(f.changes_at, []) + [$now, $now],
    f.changes = coalesce(f.changes, []) + ['expired', 'flagged']
RETURN f.id AS id, status_before, f.expires_at AS expires_at, f.ttl_days AS ttl_days,
       f.confidence AS confidence
