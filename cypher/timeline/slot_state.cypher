// params: tenant, slots, ids
// returns: scope, subject, predicate, versions, open
// Each slot's versions with the lifecycle that decides whether they compete
// (graph_memory/temporal), and its open segments (believed now); the slots are named, or
// are those of the versions `ids` (a change names what it touched). Times as ISO text: the
// driver decodes a temporal value ~40x slower than Python parses text.
CALL () {
  UNWIND $slots AS slot
  RETURN slot
  UNION
  MATCH (x:Fact)
  WHERE x.id IN $ids AND x.tenant = $tenant
  RETURN {scope: x.scope, subject: x.subject, predicate: x.predicate} AS slot
}
WITH DISTINCT slot
CALL (slot) {
  MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                 predicate: slot.predicate})
  RETURN collect({
#include timeline/_life(f)
  }) AS versions
}
CALL (slot) {
  OPTIONAL MATCH (s:Segment {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                             predicate: slot.predicate})
  WHERE s.sys_to IS NULL
  RETURN collect(s {.id, .fact_id, .view, sys_from: toString(s.sys_from),
                    valid_from: toString(s.valid_from), valid_to: toString(s.valid_to)}) AS open
}
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate,
       versions, open
