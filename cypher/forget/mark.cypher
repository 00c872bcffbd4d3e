// params: tenant, key, now
// returns: key
// Phase 1 of a forget: the contributor is marked forgotten (forget/_hidden: every read hides
// what only they gave from this commit on) and lets go of the user id, so a new episode of
// the same id starts a new, unrelated contributor. Small whatever they contributed.
MATCH (u:User {tenant: $tenant, key: $key})
SET u.forgotten_at = $now, u.id = 'forgotten:' + u.key, u.caption = 'forgotten',
    u.name = 'forgotten'
MERGE (h:Forgotten {tenant: $tenant, contributor: $key})
ON CREATE SET h.at = $now, h.caption = 'forgotten'
RETURN u.key AS key
