// params: rule
// returns: done, tenant, scope, subject, predicate, slots
// Where the timeline backfill for this rule version stands (no row: not started).
MATCH (b:TimelineBackfill {rule: $rule})
RETURN b.done AS done, b.tenant AS tenant, b.scope AS scope, b.subject AS subject,
       b.predicate AS predicate, b.slots AS slots
