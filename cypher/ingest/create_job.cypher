// params: tenant, row, now
// returns: job, created
// One job per (tenant, user, session), enforced by the ingest_job_session constraint: a
// replayed submission finds the first job instead of queueing a second.
MERGE (j:IngestJob {tenant: $tenant, user_id: $row.user_id, session_id: $row.session_id})
ON CREATE SET j += $row, j.created_at = $now, j.available_at = $now, j.status = 'queued',
              j.attempts = 0, j.caption = 'ingest ' + $row.session_id
RETURN j {.*} AS job, j.id = $row.id AS created
