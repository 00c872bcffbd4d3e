// params: tenant, ids, promote_successes, demote_margin, demote_streak, now, as_of
// returns: id, status_before, status, success_count, failure_count
// Evidence counts and status are derived from EVIDENCED_BY edges, never typed in, so removing
// evidence (a forgotten contributor) recomputes them: demoted once failures outnumber
// successes by demote_margin, or once its latest demote_streak outcomes (by the episodes'
// start) all failed, whatever it earned before (it worked, it does not now); active once
// promote_successes successes (or human-reviewed).
UNWIND $ids AS id
MATCH (p:Procedure {id: id})
WHERE p.tenant = $tenant
#include procedure/_verdicts(p)
WITH p, r, e
ORDER BY e.started_at DESC, r.at DESC, e.id DESC
// Newest first: by the session, then by when its outcome was told (an unmatched OPTIONAL
// MATCH collects nothing).
WITH p, [x IN collect(r) | coalesce(x.success, false)] AS outcomes
WITH p, size([o IN outcomes WHERE o]) AS wins, size([o IN outcomes WHERE NOT o]) AS losses,
     size(outcomes) >= $demote_streak
       AND none(o IN outcomes[0..$demote_streak] WHERE o) AS failing
WITH p, wins, losses, p.status AS status_before,
     CASE WHEN losses - wins >= $demote_margin OR failing THEN 'demoted'
          WHEN wins >= $promote_successes OR p.reviewed THEN 'active'
          ELSE 'candidate' END AS status
SET p.success_count = wins, p.failure_count = losses, p.status = status,
    // A change of status is logged with its time (procedure/list.cypher reads it as of).
    p.status_log_at = CASE WHEN status = status_before THEN p.status_log_at
                           ELSE coalesce(p.status_log_at, []) + [$now] END,
    p.status_log = CASE WHEN status = status_before THEN p.status_log
                        ELSE coalesce(p.status_log, []) + [status] END,
    p.updated_at = $now
WITH p, wins, losses, status_before, status
// Promoted: it now outranks the proven version its steps were written to replace.
OPTIONAL CALL (p, status, status_before) {
  WITH p WHERE status = 'active' AND status_before <> 'active'
#include procedure/_end_older(p)
  RETURN ended
}
RETURN p.id AS id, status_before, status, wins AS success_count,
       losses AS failure_count
