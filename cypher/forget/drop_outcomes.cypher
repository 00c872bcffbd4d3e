// params: tenant, ids
// returns: recounted
// The outcome reports these (forgotten) episodes made go before the episodes do, and the
// memories they judged are recounted from the reports left (outcome.report's rule), so no
// surviving fact keeps the salience a forgotten reporter gave it. The last outcome is the
// latest one left (or none).
UNWIND $ids AS id
MATCH (e:Episode {id: id})-[v:LED_TO]->(m)
WHERE e.tenant = $tenant
WITH collect(DISTINCT m) AS judged, collect(v) AS reports
FOREACH (v IN reports | DELETE v)
WITH judged
UNWIND judged AS m
CALL (m) {
  OPTIONAL MATCH (:Episode)-[v:LED_TO]->(m)
  WITH v ORDER BY v.at DESC
  RETURN head(collect(v)) AS last
}
SET m.helpful_count = COUNT { (:Episode)-[:LED_TO {outcome: 'helpful'}]->(m) },
    m.harmful_count = COUNT { (:Episode)-[:LED_TO {outcome: 'harmful'}]->(m) },
    m.last_outcome = last.outcome, m.last_outcome_at = last.at
RETURN count(m) AS recounted
