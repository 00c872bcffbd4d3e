// params: tenant, user_id, session_id, job_id
// returns: id
// The episode a previous attempt of this job already recorded (a resumed job must not
// record it twice).
MATCH (e:Episode {ingest_job: $job_id})
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.session_id = $session_id
RETURN e.id AS id
LIMIT 1
