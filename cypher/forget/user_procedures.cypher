// params: tenant, scope, label, before, reason
// returns: ids
// Procedures that are the forgotten user's own go whole (their intent, steps and description
// are the user's words): those of their own scope, and those a session token serving them
// wrote (created_by "<role>:<key> for <user>": an upsert or the practice of their sessions)
// that no one else's episode evidences any more. A tenant procedure others also evidenced
// stays, naming no one (its writer becomes the key alone). Only what was written before the
// forget: the user id talking since is a new contributor.
// Also a version learned from practice (procedure.mark_learned) that a forget left with no
// evidence at all: its steps are tool calls only forgotten users' sessions made, whoever's key
// submitted the sessions (an admin's makes it `reviewed`, still the user's tool calls).
MATCH (p:Procedure {tenant: $tenant})
WHERE p.created_at < $before
  AND (p.scope = $scope OR p.created_by ENDS WITH $label
       OR (p.learned AND p.demoted_reason = $reason))
WITH p, p.scope = $scope OR NOT EXISTS { (p)-[:EVIDENCED_BY]->(:Episode) } AS theirs
CALL (p, theirs) {
  WITH p WHERE NOT theirs
  WITH p WHERE p.created_by ENDS WITH $label
  SET p.created_by = left(p.created_by, size(p.created_by) - size($label))
}
WITH p, theirs, p.id AS id
CALL (p, theirs) {
  WITH p WHERE theirs
  DETACH DELETE p
}
RETURN collect(CASE WHEN theirs THEN id END) AS ids
