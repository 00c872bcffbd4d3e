// params: rows, now
// returns: row_id, job, created
// One job per (tenant, user, session), enforced by the ingest_job_session constraint: a
// replayed submission finds the first job instead of queueing a second (also within one
// batch: MERGE sees the rows this statement already wrote). Each row carries its tenant,
// checked by the repository: submissions of several tenants share one group commit.
// A job that failed (the endpoint down past its attempts, an answer that stayed malformed)
// is queued again by a submission of the same content, its turns back, its attempts anew and
// the new submitter's key to act as: a failure is not the end of a session the client still
// has. Not one a forget stopped: that session is the forgotten contributor's.
UNWIND $rows AS row
MERGE (j:IngestJob {tenant: row.tenant, user_id: row.user_id, session_id: row.session_id})
ON CREATE SET j += row, j.created_at = $now, j.available_at = $now, j.status = 'queued',
              j.attempts = 0, j.caption = 'ingest ' + row.session_id
ON MATCH SET j += CASE
  WHEN j.status = 'failed' AND j.request_hash = row.request_hash
       AND coalesce(j.error_code, '') <> 'CONTRIBUTOR_FORGOTTEN'
  THEN {status: 'queued', available_at: $now, attempts: 0, turns_json: row.turns_json,
        max_attempts: row.max_attempts, principal_role: row.principal_role,
        principal_key: row.principal_key, principal_name: row.principal_name,
        principal_scopes: row.principal_scopes, principal_user: row.principal_user,
        items_json: null, error_code: null,
        error_message: null, finished_at: null, lease_owner: null, lease_token: null,
        created_at: $now, requeued_at: $now}
  ELSE {} END
RETURN row.id AS row_id, j {.*} AS job, j.id = row.id AS created
