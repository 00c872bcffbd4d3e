// params: tenant, id, contributors, now
// returns: id
// A later forget of the same user joins the running purge (with the contributor the user id
// named since, if any), and the purge goes back over facts for it.
MATCH (j:ForgetJob {id: $id})
WHERE j.tenant = $tenant AND j.state <> 'done'
SET j.contributors = j.contributors + [c IN $contributors WHERE NOT c IN j.contributors],
    j.phase = CASE WHEN size([c IN $contributors WHERE NOT c IN j.contributors]) > 0
                   THEN 'facts' ELSE j.phase END,
    j.updated_at = $now, j.marked_at = $now
RETURN j.id AS id
