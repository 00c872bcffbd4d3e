// params: tenant, id, now
// returns: id
// The candidates the version $id may have held back from promotion (fact/_outranked): current
// candidates of another value, of a lower tier, in its single-valued slot. Once that version
// stops being served (retracted, rejected in review) they are judged again
// (services/trust/release.py); one of the ended value stays waiting, or ending a claim would
// bring it back through an inference of the same claim.
MATCH (r:Fact {id: $id})
WHERE r.tenant = $tenant AND coalesce(r.cardinality, 'one') = 'one'
MATCH (c:Fact {tenant: $tenant, scope: r.scope, subject: r.subject, predicate: r.predicate})
WHERE c.status = 'candidate' AND c.object_key <> r.object_key
  AND coalesce(c.tier_rank, 0) < coalesce(r.tier_rank, 0)
  AND c.superseded_at IS NULL AND c.retracted_at IS NULL AND c.rejected_at IS NULL
  AND (c.expires_at IS NULL OR c.expires_at > $now)
RETURN c.id AS id
ORDER BY id
