// params: tenant, contributors
// returns: deleted
// The forgotten contributors' User nodes, last (the job reaches their episodes through them).
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
DETACH DELETE u
RETURN count(*) AS deleted
