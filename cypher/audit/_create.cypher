// One AuditEvent node from the event map @node (services/audit/events.event's fields, `at` as
// ISO text), bound to `a`: the one shape of the node, whether the caller sends the events
// (audit.record) or a statement audits the writes it makes itself (consolidation.restore).
CREATE (a:AuditEvent {
  id: @node.id, tenant: $tenant, at: datetime(@node.at), actor: @node.actor,
  acted_for: @node.acted_for,
  actor_type: @node.actor_type, action: @node.action, target_type: @node.target_type,
  target_id: @node.target_id, before: @node.before, after: @node.after,
  confidence_delta: @node.confidence_delta, reason: @node.reason,
  caption: @node.action + ' ' + @node.target_type, name: @node.action + ' ' + @node.target_type
})
