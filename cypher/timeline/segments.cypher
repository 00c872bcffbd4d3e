// params: tenant, slots
// returns: scope, subject, predicate, segments
// Every stored segment of these slots (a check that the stored timeline equals the one
// recomputed from the versions).
UNWIND $slots AS slot
OPTIONAL MATCH (s:Segment {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                           predicate: slot.predicate})
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate,
       collect(s {.id, .fact_id, .view, sys_from: toString(s.sys_from),
                  sys_to: toString(s.sys_to), valid_from: toString(s.valid_from),
                  valid_to: toString(s.valid_to)}) AS segments
