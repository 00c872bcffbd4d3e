// params: tenant, scopes, now
// returns: id, other, reason, rival
// Facts that disagree as the store answers them: one subject and single-valued predicate,
// different objects in two of the run's scopes, each its slot's answer now (a current
// segment of the stored timeline, graph_memory/temporal: a version its slot's rule outranked,
// such as an entity merge's carried copy, answers nothing and disagrees with nothing), over
// validity intervals that overlap (Ann until 2027 and Ben from 2027 do not disagree), and
// mattering from now on. Each flagged side is returned once per other side; pairs already
// flagged or settled are skipped.
// Which side is flagged: both when their tiers are equal (nothing says which is right);
// only the lower tier's otherwise, the higher one being what the tenant decided; and neither
// for an explicit statement (user tier or above) in a user's own scope against a shared
// scope's (team, tenant): a person's preference beside the shared default is theirs to make
// (README, Facts). Two users' own scopes that disagree are flagged as any equal pair.
// Grouped by slot rather than joined pairwise: one index pass, and no self-join for the
// planner to get wrong (the join form failed planning at 5k facts).
MATCH (s:Segment {tenant: $tenant})
// `subject IS NOT NULL` (always true) seeks the (tenant, scope, subject) index.
WHERE s.scope IN $scopes AND s.subject IS NOT NULL AND s.sys_to IS NULL AND s.view IN ['both', 'active']
  AND (s.valid_to IS NULL OR s.valid_to > $now)
MATCH (a:Fact {id: s.fact_id})
WHERE a.tenant = $tenant AND a.status = 'active' AND coalesce(a.cardinality, 'one') = 'one'
  AND (a.expires_at IS NULL OR a.expires_at > $now)
WITH a.subject AS subject, a.predicate AS predicate,
     collect({fact: a, from: s.valid_from, to: s.valid_to}) AS live
WHERE size(live) > 1
UNWIND live AS x
UNWIND live AS y
WITH x.fact AS a, y.fact AS b, x, y,
     coalesce(x.fact.tier_rank, 0) AS mine, coalesce(y.fact.tier_rank, 0) AS theirs
WHERE b.scope <> a.scope AND b.object_key <> a.object_key
  AND (x.from IS NULL OR y.to IS NULL OR x.from < y.to)
  AND (y.from IS NULL OR x.to IS NULL OR y.from < x.to)
  AND mine <= theirs
  // A person's explicit statement in their own scope beside a shared one disagrees with
  // nothing: neither side is flagged (the shared one, flagged, would also name the private
  // fact to every reader of its scope).
  AND NOT (mine >= 1 AND a.scope STARTS WITH 'user:' AND NOT b.scope STARTS WITH 'user:')
  AND NOT (theirs >= 1 AND b.scope STARTS WITH 'user:' AND NOT a.scope STARTS WITH 'user:')
WITH DISTINCT a, b
// The reason quotes a's own words and names the other side by id only: it is kept on a (and in
// the audit trail), where the other side's words and scope (a user's id) would outlive a
// forget of its contributor.
WITH a, b, 'contradiction: ' + a.subject + ' ' + a.predicate + ' is "' + a.object + '" in '
     + a.scope + ' but fact ' + b.id + ' in another scope of the run says otherwise' AS reason
// Flagged already (for this or another disagreement of the run's scopes, not yet reviewed: a
// second run must not flag it again with another reason), or settled: a reviewer (or fresh
// evidence) verified this very disagreement (fact/_verify keeps the reason it cleared);
// another version on either side is a new one.
WHERE NOT (coalesce(a.needs_verification, false)
           AND coalesce(a.verification_reason, '') STARTS WITH 'contradiction: ')
  AND NOT coalesce(a.verified_reason, '') = reason
// Across scopes each side may be right in its own: approving one does not end the other.
RETURN a.id AS id, b.id AS other, reason, null AS rival
ORDER BY id, other
