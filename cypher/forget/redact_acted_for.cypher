// params: tenant, user, label, stand_in, before, now
// returns: redacted
// Events of session tokens that served the forgotten user (actor "<role>:<key> for <user>",
// before the forget): what they did is the user's doing, so only who (the key, the user named
// by a stand-in), when and which action stay, as for events about what was deleted
// (audit.redact). A denied request's reason names their scopes, a close its reason.
// Found by the user they were written for (`acted_for`, range index, schema 110), which goes
// with the user's name.
MATCH (a:AuditEvent {tenant: $tenant, acted_for: $user})
WHERE a.at < $before
SET a.actor = CASE WHEN a.actor ENDS WITH $label
                   THEN left(a.actor, size(a.actor) - size($label)) + $stand_in
                   ELSE a.actor END,
    a.acted_for = null, a.before = null, a.after = null, a.reason = null, a.redacted_at = $now
RETURN count(a) AS redacted
