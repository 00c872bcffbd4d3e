// params: rows, now
// returns: row_id, job, created
// One job per (tenant, user, session), enforced by the ingest_job_session constraint: a
// replayed submission finds the first job instead of queueing a second (also within one
// batch: MERGE sees the rows this statement already wrote). Each row carries its tenant,
// checked by the repository: submissions of several tenants share one group commit.
UNWIND $rows AS row
MERGE (j:IngestJob {tenant: row.tenant, user_id: row.user_id, session_id: row.session_id})
ON CREATE SET j += row, j.created_at = $now, j.available_at = $now, j.status = 'queued',
              j.attempts = 0, j.caption = 'ingest ' + row.session_id
RETURN row.id AS row_id, j {.*} AS job, j.id = row.id AS created
