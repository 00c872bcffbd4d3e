// params: tenant, events
// returns: recorded
// One node per auditable change. `before`/`after` are JSON snapshots; excision of a
// contributor later blanks them (content) but keeps who/when/what.
UNWIND $events AS ev
CREATE (a:AuditEvent {
  id: ev.id, tenant: $tenant, at: datetime(ev.at), actor: ev.actor, actor_type: ev.actor_type,
  action: ev.action, target_type: ev.target_type, target_id: ev.target_id,
  before: ev.before, after: ev.after, confidence_delta: ev.confidence_delta,
  reason: ev.reason, caption: ev.action + ' ' + ev.target_type,
  name: ev.action + ' ' + ev.target_type
})
// A count, not the ids: decoding a row per event costs the caller more than the write.
RETURN count(a) AS recorded
