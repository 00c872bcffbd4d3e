// params: tenant, slots
// returns: deleted
// Every segment of these slots, before the timeline is rebuilt from the versions (a backfill,
// or an excision that rewrites the past on purpose).
UNWIND $slots AS slot
MATCH (s:Segment {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                  predicate: slot.predicate})
DETACH DELETE s
RETURN count(*) AS deleted
