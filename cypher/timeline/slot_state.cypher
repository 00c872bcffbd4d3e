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
    id: f.id, version: f.version, object_key: f.object_key,
    many: coalesce(f.cardinality, 'one') = 'many',
    stated: coalesce(f.valid_from_stated, false),
    valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
    recorded_at: toString(f.recorded_at), activated_at: toString(f.activated_at),
    retracted_at: toString(f.retracted_at), rejected_at: toString(f.rejected_at),
    told_log_at: [t IN coalesce(f.told_log_at, []) | toString(t)],
    told_log: [t IN coalesce(f.told_log, []) | toString(t)]
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
