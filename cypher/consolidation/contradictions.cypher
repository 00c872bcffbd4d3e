// params: tenant, scopes, now
// returns: id, other, reason
// Facts believed now that disagree: one subject and single-valued predicate with different
// objects in two of the run's scopes (each slot's own rule already picks one answer within
// a scope). Each side is returned once per other side; pairs already flagged or settled are
// skipped.
// Grouped by slot rather than joined pairwise: one index pass, and no self-join for the
// planner to get wrong (the join form failed planning at 5k facts).
MATCH (a:Fact {tenant: $tenant, status: 'active'})
WHERE a.scope IN $scopes AND coalesce(a.cardinality, 'one') = 'one'
  AND a.superseded_at IS NULL AND a.retracted_at IS NULL
  AND (a.expires_at IS NULL OR a.expires_at > $now) AND (a.valid_to IS NULL OR a.valid_to > $now)
WITH a.subject AS subject, a.predicate AS predicate, collect(a) AS live
WHERE size(live) > 1
UNWIND live AS a
UNWIND live AS b
WITH a, b
WHERE b.scope <> a.scope AND b.object_key <> a.object_key
// The reason quotes a's own words and names the other side by id only: it is kept on a (and in
// the audit trail), where the other side's words and scope (a user's id) would outlive a
// forget of its contributor.
WITH a, b, 'contradiction: ' + a.subject + ' ' + a.predicate + ' is "' + a.object + '" in '
     + a.scope + ' but fact ' + b.id + ' in another scope of the run says otherwise' AS reason
// Flagged already, or settled: a reviewer (or fresh evidence) verified this very disagreement
// (fact/_verify keeps the reason it cleared); another version on either side is a new one.
WHERE NOT coalesce(a.verification_reason, '') = reason
  AND NOT coalesce(a.verified_reason, '') = reason
RETURN a.id AS id, b.id AS other, reason
ORDER BY id, other
