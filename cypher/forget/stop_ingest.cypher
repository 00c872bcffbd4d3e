// params: tenant, user_id, now
// returns: stopped
// Phase 1 of a forget: the user's sessions still waiting for (or in) extraction stop, so none
// is extracted later under the user id's next contributor; a worker holding one loses its
// lease (its conditional writes change nothing). The purge deletes the jobs.
MATCH (j:IngestJob)
WHERE j.tenant = $tenant AND j.user_id = $user_id AND j.status IN ['queued', 'running']
SET j.status = 'failed', j.lease_owner = null, j.finished_at = $now,
    j.error_code = 'CONTRIBUTOR_FORGOTTEN',
    j.error_message = 'the contributor was forgotten before the session was extracted'
RETURN count(j) AS stopped
