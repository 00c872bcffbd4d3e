// params: tenant, label, stand_in, before, now
// returns: redacted
// Events of session tokens that served the forgotten user (actor "<role>:<key> for <user>",
// before the forget): what they did is the user's doing, so only who (the key, the user named
// by a stand-in), when and which action stay, as for events about what was deleted
// (audit.redact). A denied request's reason names their scopes, a close its reason.
// Found by suffix through the text index (schema 100), not by a scan of the tenant's trail.
MATCH (a:AuditEvent)
USING TEXT INDEX a:AuditEvent(actor)
WHERE a.actor ENDS WITH $label AND a.tenant = $tenant AND a.at < $before
SET a.actor = left(a.actor, size(a.actor) - size($label)) + $stand_in,
    a.before = null, a.after = null, a.reason = null, a.redacted_at = $now
RETURN count(a) AS redacted
