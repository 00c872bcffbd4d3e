// params: tenant, scopes, now
// returns: id, other, reason
// Facts believed now that disagree: one subject and single-valued predicate with different
// objects in two of the run's scopes (each slot's own rule already picks one answer within
// a scope). Each side is returned once per other side; pairs already flagged are skipped.
MATCH (a:Fact {tenant: $tenant, status: 'active'})
WHERE a.scope IN $scopes AND coalesce(a.cardinality, 'one') = 'one'
  AND a.superseded_at IS NULL AND a.retracted_at IS NULL
  AND (a.expires_at IS NULL OR a.expires_at > $now) AND (a.valid_to IS NULL OR a.valid_to > $now)
MATCH (b:Fact {tenant: $tenant, subject: a.subject, predicate: a.predicate, status: 'active'})
WHERE b.scope IN $scopes AND b.scope <> a.scope AND b.object_key <> a.object_key
  AND coalesce(b.cardinality, 'one') = 'one'
  AND b.superseded_at IS NULL AND b.retracted_at IS NULL
  AND (b.expires_at IS NULL OR b.expires_at > $now) AND (b.valid_to IS NULL OR b.valid_to > $now)
WITH a, b, 'contradiction: ' + a.subject + ' ' + a.predicate + ' is "' + a.object + '" in '
     + a.scope + ' but "' + b.object + '" in ' + b.scope + ' (fact ' + b.id + ')' AS reason
WHERE NOT coalesce(a.verification_reason, '') = reason
RETURN a.id AS id, b.id AS other, reason
ORDER BY id, other
