// The outcome counts of memory @node from the verdicts it held by `verdicts_until` (a
// variable of the including query; null: every verdict): per contributor, each user's latest
// counted verdict (an episode's user; an episode without one counts alone), so many episodes
// of one user weigh as one; a verdict on memory above its reporter's tier cap is not counted
// (outcome.report). One rule for a report, a forget that removes a reporter's verdicts
// (outcome/_recount) and a recall as of a past moment (outcome/counts_at).
CALL (@node, verdicts_until) {
  OPTIONAL MATCH (r:Episode)-[l:LED_TO]->(@node)
  WHERE coalesce(l.counted, true) AND (verdicts_until IS NULL OR l.at <= verdicts_until)
  WITH coalesce(r.user_id, r.id) AS who, l
  ORDER BY l.at DESC
  WITH who, collect(l.outcome)[0] AS verdict
  RETURN count(CASE WHEN who IS NOT NULL AND verdict = 'helpful' THEN 1 END) AS helpful,
         count(CASE WHEN who IS NOT NULL AND verdict = 'harmful' THEN 1 END) AS harmful
}
