// params: tenant
// returns: dropped
// The raw turns finished jobs kept while the tenant's policy said keepRawTurns: dropped when
// the policy stops keeping them (trust/policy configure), so turning it off ends what was
// kept, not only what comes next. Queued, running and failed jobs keep theirs: a failed one
// is queued again with them, the others have not been extracted yet. The seek is on the
// (tenant, user_id, session_id) key every job carries.
MATCH (j:IngestJob {tenant: $tenant})
WHERE j.user_id IS NOT NULL AND j.session_id IS NOT NULL
  AND j.status IN ['done', 'nothing'] AND j.turns_json IS NOT NULL
SET j.turns_json = null
RETURN count(j) AS dropped
