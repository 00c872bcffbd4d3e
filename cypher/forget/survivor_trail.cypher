// params: tenant, ids
// returns: id, before, after, reason
// The audit trail of facts that survive a forget but were touched by it (their chain was
// rewritten, a premise was excised or reinstated): the service looks for mentions of excised
// versions in it (services/forget/trail.py).
UNWIND $ids AS id
MATCH (a:AuditEvent {tenant: $tenant, target_id: id})
WHERE a.redacted_at IS NULL
  AND (a.before IS NOT NULL OR a.after IS NOT NULL OR a.reason IS NOT NULL)
RETURN a.id AS id, a.before AS before, a.after AS after, a.reason AS reason
