// params: tenant, user_id, now
// returns: stopped
// Phase 1 of a forget: the user's sessions still waiting for (or in) extraction stop, so none
// is extracted later under the user id's next contributor; a worker holding one loses its
// lease (its conditional writes change nothing). The purge deletes the jobs.
// Every job of theirs is marked: ingest/get_job hides a marked job (its turns and item texts
// are their words) until the purge deletes it, also once their episodes are gone.
MATCH (j:IngestJob)
// `session_id IS NOT NULL` (always true) seeks the (tenant, user_id, session_id) index.
WHERE j.tenant = $tenant AND j.user_id = $user_id AND j.session_id IS NOT NULL
  AND j.created_at < $now
SET j.forgotten_at = coalesce(j.forgotten_at, $now)
WITH j WHERE j.status IN ['queued', 'running']
SET j.status = 'failed', j.lease_owner = null, j.finished_at = $now,
    j.error_code = 'CONTRIBUTOR_FORGOTTEN',
    j.error_message = 'the contributor was forgotten before the session was extracted'
RETURN count(j) AS stopped
