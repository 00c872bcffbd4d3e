// params: tenant, scopes, ids, names, slots
// returns: locked, lock_stamp, server_now, episodes, predicates, slots
// Everything a fact batch decides on, read under its write locks in one round trip: the scope
// locks first (lock/_scopes), then the cited episodes (forgotten: their contributor was
// forgotten, a write citing it is refused), the predicates' registered cardinalities, and for each
// (scope, subject, predicate) slot its highest version number, every version that competes
// with the batch's (of a many-valued slot, those of the objects the batch names) with what
// the write rules and the time rule (graph_memory/temporal) read of it, and their open
// segments.
// A slot with no versions yet returns none: a batch of new facts costs one seek per slot.
// Times as ISO text: the driver decodes a temporal value ~40x slower than Python parses text.
CYPHER 25
#include lock/_scopes
// Read after the locks: a forget that committed before them is seen.
#include forget/_hidden
CALL (hidden) {
  UNWIND $ids AS id
  MATCH (e:Episode {id: id})
  WHERE e.tenant = $tenant
  RETURN collect({id: e.id, session_id: e.session_id, user_id: e.user_id,
                  confidence: e.confidence, scope: e.scope, started_at: e.started_at,
                  forgotten:
#include forget/_hidden_episode(e)
                 }) AS episodes
}
CALL () {
  UNWIND $names AS name
  MATCH (p:Predicate {tenant: $tenant, name: name})
  RETURN collect({name: p.name, cardinality: p.cardinality}) AS predicates
}
CALL () {
  UNWIND $slots AS slot
  // The whole slot, one property each: its highest version number, and whether every
  // version is many-valued. Then, when the batch names its objects (slot.objects) and the
  // predicate is registered many-valued, only the versions of those objects are read (only
  // they compete: graph_memory/temporal), through the (slot, object) index.
  CALL (slot) {
    OPTIONAL MATCH (g:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                            predicate: slot.predicate})
    RETURN max(g.version) AS top,
           sum(CASE WHEN g IS NULL OR g.cardinality = 'many' THEN 0 ELSE 1 END) AS single
  }
  OPTIONAL MATCH (sp:Predicate {tenant: $tenant, name: slot.predicate})
  WITH slot, top,
       slot.objects IS NOT NULL AND coalesce(sp.cardinality = 'many', false) AND single = 0
         AS narrow
  // Aggregated inside: a slot whose named objects have no version yet still comes back
  // (with its highest version number).
  CALL (slot, narrow) {
    CALL (slot, narrow) {
      WITH slot WHERE narrow
      UNWIND slot.objects AS object_key
      MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                     predicate: slot.predicate, object_key: object_key})
      RETURN f
      UNION
      WITH slot WHERE NOT narrow
      MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                     predicate: slot.predicate})
      RETURN f
    }
    RETURN collect({
      tier: f.tier, status: f.status,
      current: f.superseded_at IS NULL AND f.retracted_at IS NULL AND f.status <> 'rejected',
      // Epoch millis and exact microseconds, as services/facts/validity.py compares them.
      expires_ms: f.expires_at.epochMillis,
      valid_from_us: f.valid_from.epochSeconds * 1000000 + f.valid_from.microsecond,
      valid_to_us: f.valid_to.epochSeconds * 1000000 + f.valid_to.microsecond,
      valid_from_stated: coalesce(f.valid_from_stated, false),
      told_us: coalesce(f.told_at, f.recorded_at).epochSeconds * 1000000
        + coalesce(f.told_at, f.recorded_at).microsecond,
#include timeline/_life(f)
    }) AS versions
  }
  WITH slot, top, narrow, versions, [v IN versions | v.id] AS read
  WHERE top IS NOT NULL
  CALL (slot, narrow, read) {
    OPTIONAL MATCH (s:Segment {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                               predicate: slot.predicate})
    WHERE s.sys_to IS NULL AND (NOT narrow OR s.fact_id IN read)
    RETURN collect(s {.id, .fact_id, .view, sys_from: toString(s.sys_from),
                      valid_from: toString(s.valid_from), valid_to: toString(s.valid_to)})
           AS open
  }
  RETURN collect({scope: slot.scope, subject: slot.subject, predicate: slot.predicate,
                  top: top, versions: versions, open: open}) AS slots
}
RETURN locked, lock_stamp, server_now, episodes, predicates, slots
