// params: tenant, id, now
// returns: id, scope
// The current candidates the version $id holds back from promotion (fact/_holds, in the
// scopes fact/_outranked looks in: its own, and a narrower one's inferences for a tenant-scope
// version), asked before a decision ends it (a retraction, a rejection in review): once it
// has ended they are judged again (services/facts/release.py), and promoted if their evidence
// reaches the threshold and no other version still holds them.
MATCH (ot_h:Fact {id: $id})
WHERE ot_h.tenant = $tenant
MATCH (c:Fact {tenant: $tenant, subject: ot_h.subject, predicate: ot_h.predicate})
WHERE (c.scope = ot_h.scope OR (ot_h.scope = 'tenant' AND c.tier = 'inferred'))
  AND c.status = 'candidate' AND c.superseded_at IS NULL AND c.retracted_at IS NULL
  AND c.rejected_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > $now)
  AND
#include fact/_holds(c)
RETURN c.id AS id, c.scope AS scope
ORDER BY id
