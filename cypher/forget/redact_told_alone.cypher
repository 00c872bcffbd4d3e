// params: tenant, rows, now
// returns: redacted
// Surviving versions the forgotten contributors said first, now believed from when the
// others first said them (forget.rest_on; rows {id, first}): the audit events about them from
// before that moment recorded the contributors' own telling (its date, wording, tier), so
// their content goes as a deleted fact's does (audit/_blank); later events are the others'.
UNWIND $rows AS row
MATCH (a:AuditEvent {tenant: $tenant, target_id: row.id})
WHERE a.at < datetime(row.first)
  // Counted once: a later forget's purge finds them blank already.
  AND (a.before IS NOT NULL OR a.after IS NOT NULL OR a.reason IS NOT NULL)
#include audit/_blank(a)
RETURN count(a) AS redacted
