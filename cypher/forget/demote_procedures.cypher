// params: tenant, ids, now, reason
// returns: id, status_before
// A procedure left with no evidence at all is demoted, not deleted: its steps were written by
// someone, but nothing observed supports them any more. As if that evidence had never been
// recorded: its counts go to zero, and unless a human reviewed it (an admin's procedure is
// active by that review, not by evidence) its status log is cleared, so no asOf read finds it
// proven by the forgotten contributors' sessions at a moment before the purge.
UNWIND $ids AS id
MATCH (p:Procedure {id: id})
WHERE p.tenant = $tenant AND NOT EXISTS { (p)-[:EVIDENCED_BY]->(:Episode) }
WITH p, p.status AS status_before, coalesce(p.reviewed, false) AS reviewed
// updated_at too: a read as of a moment before it must not take the procedure as unchanged
// since then (procedure/_as_of reads an unchanged one as stored).
SET p.status = 'demoted', p.demoted_at = $now, p.demoted_reason = $reason, p.updated_at = $now,
    p.success_count = 0, p.failure_count = 0,
    p.status_log_at = CASE WHEN reviewed THEN coalesce(p.status_log_at, []) + [$now] END,
    p.status_log = CASE WHEN reviewed THEN coalesce(p.status_log, []) + ['demoted'] END
RETURN p.id AS id, status_before
