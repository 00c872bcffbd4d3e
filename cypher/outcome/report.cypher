// params: tenant, ids, outcome, episode_id, now, actor
// returns: id, kind, recorded, helpful, harmful
// What retrieved memories (facts or episodes) led to in an episode: one verdict per
// (episode, memory), a second report replacing the first. The counts are recounted from the
// verdicts after the memory is write-locked (the first SET), so concurrent reports never lose
// one. Usage, not belief: confidence is left alone; recall's salience reads the counts. No
// row at all when the episode is not the tenant's.
MATCH (ep:Episode {id: $episode_id})
WHERE ep.tenant = $tenant
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
WITH ep, id, coalesce(f, e) AS m,
     CASE WHEN f IS NOT NULL THEN 'fact' WHEN e IS NOT NULL THEN 'episode' END AS kind
CALL (ep, m) {
  WITH ep, m WHERE m IS NOT NULL
  SET m.last_outcome_at = $now, m.last_outcome = $outcome
  MERGE (ep)-[v:LED_TO]->(m)
  SET v.outcome = $outcome, v.at = $now, v.actor = $actor
  WITH m
  SET m.helpful_count = COUNT { (:Episode)-[:LED_TO {outcome: 'helpful'}]->(m) },
      m.harmful_count = COUNT { (:Episode)-[:LED_TO {outcome: 'harmful'}]->(m) }
  RETURN m.helpful_count AS helpful, m.harmful_count AS harmful
  UNION
  WITH m WHERE m IS NULL
  RETURN null AS helpful, null AS harmful
}
RETURN id, kind, m IS NOT NULL AS recorded, helpful, harmful
