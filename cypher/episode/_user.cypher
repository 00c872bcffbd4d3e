// The contributor (User node) the user id @node names now, created on first use with a key
// of its own, bound to `u`: episodes carry the key, a forget hides and purges by it and lets
// go of the id, so the next use starts a new, unrelated contributor.
MERGE (u:User {tenant: $tenant, id: @node})
ON CREATE SET u.key = randomUUID(), u.created_at = $now, u.caption = @node, u.name = @node
