// params: tenant, ids, now, reason
// returns: id, status_before
// A procedure left with no evidence at all is demoted, not deleted: its steps were written by
// someone, but nothing observed supports them any more.
UNWIND $ids AS id
MATCH (p:Procedure {id: id})
WHERE p.tenant = $tenant AND NOT EXISTS { (p)-[:EVIDENCED_BY]->(:Episode) }
WITH p, p.status AS status_before
SET p.status = 'demoted', p.demoted_at = $now, p.demoted_reason = $reason,
    p.status_log_at = coalesce(p.status_log_at, []) + [$now],
    p.status_log = coalesce(p.status_log, []) + ['demoted']
RETURN p.id AS id, status_before
