// params: tenant, ids, now
// returns: recounted, redacted
// The outcome reports these (forgotten) episodes made go before the episodes do, and the
// memories they judged are recounted from the reports left (outcome/_recount, the rule a
// report uses), so no surviving fact keeps the salience a forgotten reporter gave it. The
// audit events of those reports keep who/when/which action, not the verdict nor the episode
// it names (audit.redact's rule): a surviving memory's trail would otherwise keep them.
UNWIND $ids AS id
MATCH (e:Episode {id: id})-[v:LED_TO]->(m)
WHERE e.tenant = $tenant
// One pass per (episode, memory), however many reports it made (each adds a verdict).
WITH e, m, collect(v) AS vs
CALL (e, m) {
  MATCH (a:AuditEvent {tenant: $tenant, target_id: m.id})
  WHERE a.action = 'report_outcome' AND a.redacted_at IS NULL AND a.reason CONTAINS e.id
#include audit/_blank(a)
  RETURN count(a) AS events
}
WITH collect(DISTINCT m) AS judged, collect(vs) AS reports, sum(events) AS redacted
FOREACH (vs IN reports | FOREACH (v IN vs | DELETE v))
WITH judged, redacted
UNWIND judged AS m
#include outcome/_recount(m)
RETURN count(m) AS recounted, redacted
