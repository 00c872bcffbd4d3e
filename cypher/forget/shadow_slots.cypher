// params: tenant, slots
// returns: scope, subject, predicate, versions
// The slots a read found touched by a forget in flight (forget/_touched_fact): every version
// with its life (timeline/_life), its evidence links marked withdrawn (a forgotten
// contributor's episode) or kept, its successor, and when belief in it ended, so that the reader resolves the
// slot as the purge will leave it (graph_memory/temporal/withdrawal.py). Times as ISO text.
#include forget/_hidden
UNWIND $slots AS slot
WITH DISTINCT hidden, slot
CALL (slot, hidden) {
  MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                 predicate: slot.predicate})
  CALL (f, hidden) {
    OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
    RETURN collect(CASE WHEN e IS NOT NULL THEN {
      at: toString(d.at), started: toString(e.started_at),
      withdrawn: coalesce(e.contributor IN hidden, false)} END) AS links
  }
  RETURN collect({
#include timeline/_life(f)
    , links: links, superseded_by: f.superseded_by,
    ends: [t IN [f.superseded_at, f.retracted_at, f.rejected_at, f.expired_at]
           WHERE t IS NOT NULL | toString(t)]
  }) AS versions
}
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate, versions
