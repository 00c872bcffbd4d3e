// One append-only change log per fact version (graph_memory/temporal/lifecycle.py): versions
// written before it get theirs from the moments on record (activation, each flag and
// verification of the flag log, or its last flag and verification before there was one, and
// the endings), in time order; the flag log it replaces is removed. In batches of its own
// transactions (migrations.py runs such a statement outside a managed one): a store of
// millions of versions in one transaction would exhaust the transaction memory, and a crash
// midway resumes from the versions still without a log.
MATCH (f:Fact) WHERE f.changes IS NULL
CALL (f) {
  WITH f,
       [x IN [[f.activated_at, 'activated'], [f.superseded_at, 'superseded'],
              [f.retracted_at, 'retracted'], [f.rejected_at, 'rejected'],
              [f.expired_at, 'expired']] WHERE x[0] IS NOT NULL]
       + CASE WHEN f.flag_log_at IS NOT NULL
              THEN [i IN range(0, size(f.flag_log_at) - 1) |
                    [f.flag_log_at[i], CASE WHEN f.flag_log[i] THEN 'flagged' ELSE 'verified' END]]
              ELSE [x IN [[f.flagged_at, 'flagged'], [f.verified_at, 'verified']]
                    WHERE x[0] IS NOT NULL] END AS raw
  WITH f, COLLECT { UNWIND range(0, size(raw) - 1) AS i RETURN raw[i] AS x ORDER BY raw[i][0], i } AS log
  SET f.changes_at = [x IN log | x[0]], f.changes = [x IN log | x[1]]
  REMOVE f.flag_log_at, f.flag_log
} IN TRANSACTIONS OF 10000 ROWS
