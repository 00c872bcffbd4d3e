// params: tenant, scopes, now
// returns: id, other, reason, rival
// An entity merge carries each claim about the absorbed name into the survivor's slot, where
// the time rule lets one answer (graph_memory/temporal): where the two names were told
// different values of a single-valued predicate, the claim that lost (the carried copy or the
// survivor's own) answers nothing now, silently, though nothing superseded it. Each such
// claim is returned (not the answer that won, which stays served) so that a reviewer sees the
// disagreement the merge settled (approve it to make it the answer: `rival`, kept on the flag,
// is the served version the approval ends, review/approve). Pairs already flagged
// or settled are skipped, as for contradictions across scopes.
// Only the slots a merge carried a claim into: one scan of the scopes' facts, then seeks.
MATCH (x:Fact {tenant: $tenant})
WHERE x.scope IN $scopes AND x.merged_from IS NOT NULL AND x.retracted_at IS NULL
WITH DISTINCT x.scope AS scope, x.subject AS subject, x.predicate AS predicate
MATCH (c:Fact {tenant: $tenant, scope: scope, subject: subject, predicate: predicate})
WHERE c.status = 'active' AND c.retracted_at IS NULL AND c.superseded_at IS NULL
  AND coalesce(c.cardinality, 'one') = 'one'
  AND (c.expires_at IS NULL OR c.expires_at > $now)
  AND (c.valid_to IS NULL OR c.valid_to > $now)
  // It answers nothing now: a claim with a start given answers nothing at all (one that
  // still answers its own years was succeeded, "CEO since 2015" before "since 2020"); one told
  // without a start, nothing valid now (it yields to the one said later for every moment
  // after that was said, whatever it answered before).
  AND NOT EXISTS {
    MATCH (own:Segment {tenant: $tenant, scope: c.scope, subject: c.subject,
                        predicate: c.predicate})
    WHERE own.fact_id = c.id AND own.sys_to IS NULL
      AND (coalesce(c.valid_from_stated, false)
           OR (own.view IN ['both', 'active']
               AND (own.valid_from IS NULL OR own.valid_from <= $now)
               AND (own.valid_to IS NULL OR $now < own.valid_to)))
  }
MATCH (s:Segment {tenant: $tenant, scope: c.scope, subject: c.subject, predicate: c.predicate})
WHERE s.sys_to IS NULL AND s.view IN ['both', 'active']
  AND (s.valid_from IS NULL OR s.valid_from <= $now) AND (s.valid_to IS NULL OR $now < s.valid_to)
MATCH (w:Fact {id: s.fact_id})
WHERE w.tenant = $tenant
WITH DISTINCT c, w
// c's own words and the other side by id only (kept on c and in the audit trail).
WITH c, w, 'contradiction: ' + c.subject + ' ' + c.predicate + ' is "' + c.object
     + '" as told of ' + coalesce(c.subject_merged_from, c.subject) + ', but after an entity '
     + 'merge its answer is fact ' + w.id AS reason
// The two disagree, and one of them came over from an absorbed name (settled by a merge).
// Compared here, past the DISTINCT: in the MATCH above, with some statistics, Neo4j
// 2026.01's planner folded `w.object_key <> c.object_key` into c's expiry test as a partial
// predicate and then failed its own plan check (VerifyBestPlan, an internal error; CI).
WHERE w.object_key <> c.object_key
  AND (c.merged_from IS NOT NULL OR w.merged_from IS NOT NULL)
  AND NOT coalesce(c.verification_reason, '') = reason
  AND NOT coalesce(c.verified_reason, '') = reason
RETURN c.id AS id, w.id AS other, reason, w.id AS rival
ORDER BY id, other
