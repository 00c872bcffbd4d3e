// @node as it stood at $as_of, as the map `then`: its status then (the last one logged by
// then; a log-less node has only today's), its evidence counts then (each episode's latest
// verdict by then, procedure/_verdicts, leaving out a forgotten contributor's episodes:
// `hidden`, forget/_hidden, must be in scope), a supersession only if it came by then, and
// its last change by then. A read as of T is what a read at T answered. Shared by the as-of
// listing (procedure/list) and recall (its search's ranking and the items it returns).
// Unchanged since $as_of (every change of its status, counts or supersession sets
// updated_at) and no forget in flight: as stored, with no walk over its verdicts (a
// procedure reported thousands of times costs a read as of now nothing more).
CALL (@node, hidden) {
  WITH @node AS asked
  WHERE size(hidden) = 0 AND asked.updated_at <= $as_of
  RETURN asked {.*, embedding: null, status_log_at: null, status_log: null} AS then
  UNION ALL
  WITH @node AS asked, hidden
  WHERE NOT coalesce(size(hidden) = 0 AND asked.updated_at <= $as_of, false)
#include procedure/_verdicts(asked)
  WITH asked, r, e IS NOT NULL AND NOT
#include forget/_hidden_episode(e)
       AS counts
  WITH asked, count(CASE WHEN counts AND r.success THEN 1 END) AS wins,
       count(CASE WHEN counts AND r.success = false THEN 1 END) AS losses,
       max(CASE WHEN counts THEN coalesce(r.at, asked.created_at) END) AS told
  RETURN asked {.*, embedding: null, status_log_at: null, status_log: null,
    status: CASE WHEN asked.status_log_at IS NULL THEN asked.status
                 ELSE last([i IN range(0, size(asked.status_log_at) - 1)
                            WHERE asked.status_log_at[i] <= $as_of | asked.status_log[i]]) END,
    success_count: wins, failure_count: losses,
    superseded_at: CASE WHEN asked.superseded_at <= $as_of THEN asked.superseded_at END,
    superseded_by: CASE WHEN asked.superseded_at <= $as_of THEN asked.superseded_by END,
    // Changed since: its last change by then was its latest verdict told, or its making.
    updated_at: CASE WHEN asked.updated_at <= $as_of THEN asked.updated_at
                     ELSE coalesce(told, asked.created_at) END
  } AS then
}
