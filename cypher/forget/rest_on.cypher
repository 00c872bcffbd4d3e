// params: tenant, rows
// returns: id
// Stores what the evidence left says of surviving versions (repositories/forget.py,
// rest_on_evidence_left; the rule: graph_memory/temporal/withdrawal.rest_on). A row's `first`
// (when set): the version is believed from then, as if the forgotten contributors had never
// said it: its change log's earlier entries move to that moment. In order of that moment,
// so that an older version re-dated here is moved before its successor's supersession lands
// on it. Its validity: as the first telling left
// claimed it (or, when a link kept no claim, a start nobody stated moved to the earliest
// start of the episodes left). `tier` (when set): the strongest tier the tellings left spoke
// with, below the version's; `source` (when set): the source of the telling that tier is
// from. The told log is the one the links left write (fact.create,
// fact.add_evidence). `activated_at` (when set): when it is served as truth from now on.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
WITH f, row, datetime(row.first) AS first
ORDER BY row.first
SET f.valid_from = datetime(row.valid_from), f.valid_to = datetime(row.valid_to),
    f.valid_from_stated = row.stated,
    f.tier = coalesce(row.tier, f.tier), f.tier_rank = coalesce(row.tier_rank, f.tier_rank),
    f.tier_cap = coalesce(row.tier_cap, f.tier_cap), f.source = coalesce(row.source, f.source),
    f.told_log_at = [t IN row.told_log_at | datetime(t)],
    f.told_log = [t IN row.told_log | datetime(t)],
    f.told_at = datetime(row.told_at)
WITH f, row, first
CALL (f, row, first) {
  WITH f, first WHERE first IS NOT NULL
  SET f.recorded_at = first,
      f.changes_at = [t IN coalesce(f.changes_at, []) | CASE WHEN t < first THEN first ELSE t END]
}
// Its promotion moved (with its first telling, or to when the sessions left reach the
// threshold: temporal/withdrawal.repromote): its change log's activation with it, and the
// version it superseded superseded from then on. Only a supersession f made, and from when f
// was first served as truth (its recording, or its promotion for a version written a
// candidate: fact/_close_linked); a candidate's link ended nothing.
CALL (f, row) {
  WITH f, datetime(row.activated_at) AS at WHERE at IS NOT NULL
  SET f.activated_at = at,
      f.changes_at = [i IN range(0, size(coalesce(f.changes, [])) - 1) |
                      CASE WHEN f.changes[i] = 'activated' AND f.changes_at[i] < at THEN at
                           ELSE f.changes_at[i] END]
  WITH f, at
  OPTIONAL MATCH (f)-[:SUPERSEDES]->(o:Fact)
  WITH o, at
  WHERE o IS NOT NULL AND o.superseded_by = f.id
  SET o.superseded_at = at,
      o.changes_at = [i IN range(0, size(coalesce(o.changes, [])) - 1) |
                      CASE WHEN o.changes[i] = 'superseded' THEN at ELSE o.changes_at[i] END]
}
RETURN f.id AS id
