// The outcome counts of memory @node from the verdicts it holds: per contributor, each user's
// latest counted verdict (an episode's user; an episode without one counts alone), so many
// episodes of one user weigh as one; a verdict on memory above its reporter's tier cap is not
// counted (outcome.report). The last outcome is the latest verdict left (or none). One rule
// for a report and for a forget that removes a reporter's verdicts.
CALL (@node) {
  OPTIONAL MATCH (r:Episode)-[l:LED_TO]->(@node)
  WHERE coalesce(l.counted, true)
  WITH coalesce(r.user_id, r.id) AS who, l
  ORDER BY l.at DESC
  WITH who, collect(l.outcome)[0] AS verdict
  RETURN count(CASE WHEN who IS NOT NULL AND verdict = 'helpful' THEN 1 END) AS helpful,
         count(CASE WHEN who IS NOT NULL AND verdict = 'harmful' THEN 1 END) AS harmful
}
CALL (@node) {
  OPTIONAL MATCH (:Episode)-[v:LED_TO]->(@node)
  WITH v ORDER BY v.at DESC
  RETURN head(collect(v)) AS last
}
SET @node.helpful_count = helpful, @node.harmful_count = harmful,
    @node.last_outcome = last.outcome, @node.last_outcome_at = last.at
