// params: tenant, ids, now
// returns: redacted
// Excision keeps the audit trail's who/when/which action but drops what was said: content
// snapshots and free-text reasons of events about deleted facts/episodes/users are blanked.
UNWIND $ids AS id
MATCH (a:AuditEvent {tenant: $tenant, target_id: id})
#include audit/_blank(a)
RETURN count(a) AS redacted
