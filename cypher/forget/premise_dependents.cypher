// params: tenant, ids, excised
// returns: id, reason, changed
// Conclusions awaiting verification that depend on these surviving premises (down the whole
// chain, as flags cascade), with one of their own premises (excised ones aside) that really
// changed: [id, what happened] or null.
UNWIND $ids AS pid
MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(:Fact {id: pid})
WHERE d.tenant = $tenant AND d.needs_verification AND NOT d.id IN $excised
WITH DISTINCT d
OPTIONAL MATCH (d)-[:DEPENDS_ON]->(q:Fact)
WHERE NOT q.id IN $excised
  AND (q.retracted_at IS NOT NULL OR q.superseded_at IS NOT NULL OR q.status = 'expired')
WITH d, collect(CASE WHEN q IS NULL THEN null
                     ELSE [q.id, CASE WHEN q.retracted_at IS NOT NULL THEN 'retracted'
                                      WHEN q.superseded_at IS NOT NULL
                                        THEN 'superseded by '
                                             + coalesce(q.superseded_by, 'a new version')
                                      ELSE 'expired' END] END)[0] AS changed
RETURN d.id AS id, d.verification_reason AS reason, changed
