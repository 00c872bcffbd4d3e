// The outcome counts of memory @node stored from every verdict it holds (outcome/_verdicts);
// the last outcome is the latest verdict left (or none). One rule for a report and for a
// forget that removes a reporter's verdicts.
WITH *, null AS verdicts_until
#include outcome/_verdicts(@node)
CALL (@node) {
  OPTIONAL MATCH (:Episode)-[v:LED_TO]->(@node)
  WITH v ORDER BY v.at DESC
  RETURN head(collect(v)) AS last
}
SET @node.helpful_count = helpful, @node.harmful_count = harmful,
    @node.last_outcome = last.outcome, @node.last_outcome_at = last.at
