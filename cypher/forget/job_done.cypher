// params: tenant, id, owner, counts, now
// returns: id
// The purge is finished: the markers go (nothing of theirs is left to hide, and reads pay
// for markers), and so does the user id the job kept, with the predicates their facts used
// (the names are theirs: the finish has deleted the ones no fact uses any more).
MATCH (j:ForgetJob {id: $id})
WHERE j.tenant = $tenant AND j.lease_owner = $owner AND j.state <> 'done'
SET j.state = 'done', j.phase = 'done', j.counts = $counts, j.finished_at = $now,
    j.updated_at = $now, j.user_id = null, j.predicates = [], j.lease_owner = null,
    j.lease_until = null
WITH j
CALL (j) {
  MATCH (h:Forgotten {tenant: $tenant})
  WHERE h.contributor IN j.contributors
  DELETE h
}
RETURN j.id AS id
