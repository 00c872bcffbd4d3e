// params: tenant, ids
// returns: recounted
// The outcome reports these (forgotten) episodes made go before the episodes do, and the
// memories they judged are recounted from the reports left (outcome/_recount, the rule a
// report uses), so no surviving fact keeps the salience a forgotten reporter gave it.
UNWIND $ids AS id
MATCH (e:Episode {id: id})-[v:LED_TO]->(m)
WHERE e.tenant = $tenant
WITH collect(DISTINCT m) AS judged, collect(v) AS reports
FOREACH (v IN reports | DELETE v)
WITH judged
UNWIND judged AS m
#include outcome/_recount(m)
RETURN count(m) AS recounted
