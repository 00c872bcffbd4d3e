// params: tenant, key, now, promote_sessions
// returns: key
// Phase 1 of a forget: the contributor is marked forgotten (forget/_hidden: every read hides
// what only they gave from this commit on) and lets go of the user id, so a new episode of
// the same id starts a new, unrelated contributor. Small whatever they contributed.
// The marker keeps the user's own scope: what was kept there before the forget is theirs
// whoever wrote it (forget/_hidden_procedure), as the purge treats it (forget/user_procedures).
MATCH (u:User {tenant: $tenant, key: $key})
WITH u, CASE WHEN u.forgotten_at IS NULL THEN 'user:' + u.id END AS own
SET u.forgotten_at = $now, u.id = 'forgotten:' + u.key, u.caption = 'forgotten',
    u.name = 'forgotten'
MERGE (h:Forgotten {tenant: $tenant, contributor: $key})
ON CREATE SET h.at = $now, h.caption = 'forgotten', h.scope = own,
              h.ends_left = true  // forget/_next_facts: the purge's first phase
// The tenant's corroboration threshold when the forget began: reads resolving a slot the
// forget touches withdraw a promotion their sessions earned by it (repositories/shadow.py),
// as the purge does (forget/recandidate).
SET h.promote_sessions = $promote_sessions
RETURN u.key AS key
