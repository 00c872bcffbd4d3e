// params: tenant, slots
// returns: scope, subject, predicate, versions, promote_sessions
// The slots a read found touched by a forget in flight (forget/_touched_fact): every version
// with its life (timeline/_life), its evidence links marked withdrawn (a forgotten
// contributor's episode) or kept, its neighbours in its chain and when belief in it ended,
// so that the reader resolves the slot as the purge will leave it
// (graph_memory/temporal/withdrawal.py), with the evidence weights and sessions its
// confidence and promotion rest on. Times as ISO text.
#include forget/_hidden
#include forget/_threshold
UNWIND $slots AS slot
WITH DISTINCT hidden, promote_sessions, slot
CALL (slot, hidden) {
  MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                 predicate: slot.predicate})
  // A version a purge batch deletes while this reads comes back without its properties (read
  // committed): it is gone.
  WHERE f.id IS NOT NULL AND f.recorded_at IS NOT NULL
  CALL (f, hidden) {
    OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
    RETURN collect(CASE WHEN e.started_at IS NOT NULL THEN {
      at: toString(d.at), started: toString(e.started_at), weight: d.weight,
      user_id: e.user_id, session_id: e.session_id,
      withdrawn: coalesce(e.contributor IN hidden, false),
#include forget/_link_claim(d)
    } END) AS links
  }
  RETURN collect({
#include timeline/_life(f)
    , links: links, superseded_by: f.superseded_by, supersedes: f.supersedes,
    tier: f.tier, tier_cap: f.tier_cap, source: f.source, approved: f.approved_at IS NOT NULL,
    // Supersession apart: the reader takes it from the surviving successor (forget/relink).
    ends: [t IN [f.retracted_at, f.rejected_at, f.expired_at] WHERE t IS NOT NULL | toString(t)]
  }) AS versions
}
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate, versions,
       promote_sessions
