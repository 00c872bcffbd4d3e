// params: tenant, fact_ids
// returns: version
// Surviving versions a forgotten contributor also supported, once their evidence is unlinked:
// each one's life (timeline/_life), the evidence left (linked when, to an episode started
// when, what that telling said) and when belief in it ended, for the purge to store when the others' evidence alone
// says it was believed, valid and said (graph_memory/temporal/withdrawal.rest_on). Times as
// ISO text.
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WHERE f.tenant = $tenant
CALL (f) {
  MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  RETURN collect({at: toString(d.at), started: toString(e.started_at),
                  user_id: e.user_id, session_id: e.session_id,
#include forget/_link_claim(d)
  }) AS links
}
RETURN {
#include timeline/_life(f)
  , links: links, tier: f.tier, source: f.source, approved: f.approved_at IS NOT NULL,
  ends: [t IN [f.superseded_at, f.retracted_at, f.rejected_at, f.expired_at]
         WHERE t IS NOT NULL | toString(t)]
} AS version
