// params: tenant, fact_ids
// returns: id
// A surviving version the forgotten contributors said first is believed from when the others
// first said it (its earliest evidence link left), as if they had never said it: before that
// moment it was theirs alone, and no asOf read may show it then (with a confidence of 0 and
// no provenance). Its change log's earlier entries (activation) move to that moment, and the
// version it superseded is superseded from then on (fact.create's rule: from its successor's
// recording time). A version whose others' evidence came only after it ended (superseded,
// retracted, rejected or expired first) keeps its times: moving them would invert its belief
// interval. In order of that moment, so that an older version re-dated here is moved before
// its successor's supersession lands on it. Returns the re-dated versions: their slots'
// timelines are rebuilt.
// Valid time likewise: a start nobody stated defaulted to the earliest cited episode's start
// (facts.rows.claimed_validity); if that was one of theirs, the version holds in the world from
// the earliest start of the episodes left, or a validAt read would still answer from their
// testimony alone. (Not past its own end: then its validity is left as it was.)
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WHERE f.tenant = $tenant
CALL (f) {
  MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  RETURN min(coalesce(d.at, f.recorded_at)) AS first, min(e.started_at) AS began
}
WITH f, first, began,
     first > f.recorded_at
     AND all(t IN [f.superseded_at, f.retracted_at, f.rejected_at, f.expired_at]
             WHERE t IS NULL OR first < t) AS believed_later,
     NOT coalesce(f.valid_from_stated, false) AND began > f.valid_from
     AND (f.valid_to IS NULL OR began < f.valid_to) AS valid_later
WHERE believed_later OR valid_later
SET f.valid_from = CASE WHEN valid_later THEN began ELSE f.valid_from END
WITH f, first, believed_later ORDER BY first
CALL (f, first, believed_later) {
  WITH f, first WHERE believed_later
  SET f.recorded_at = first,
      f.activated_at = CASE WHEN f.activated_at < first THEN first ELSE f.activated_at END,
      f.changes_at = [t IN coalesce(f.changes_at, []) | CASE WHEN t < first THEN first ELSE t END]
  WITH f, first
  OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
  WITH f, first, o WHERE o IS NOT NULL
  SET o.superseded_at = first,
      o.changes_at = [i IN range(0, size(coalesce(o.changes, [])) - 1) |
                      CASE WHEN o.changes[i] = 'superseded' THEN first ELSE o.changes_at[i] END]
}
RETURN f.id AS id
