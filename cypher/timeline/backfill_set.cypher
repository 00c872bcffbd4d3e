// params: rule, done, tenant, scope, subject, predicate, slots
// returns: rule
// Records the backfill's progress after each batch, so a restart resumes after the last slot.
MERGE (b:TimelineBackfill {rule: $rule})
SET b.done = $done, b.tenant = $tenant, b.scope = $scope, b.subject = $subject,
    b.predicate = $predicate, b.slots = $slots, b.updated_at = datetime(),
    b.caption = 'timeline backfill ' + toString($rule)
RETURN b.rule AS rule
