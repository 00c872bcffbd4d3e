// params: tenant, id
// returns: id
// A version written from the practice of a session (its steps are the tool calls a user's
// session made, not an agent's writing): a forget of everyone whose sessions evidence it
// deletes it rather than demote it (forget.user_procedures).
MATCH (p:Procedure {id: $id})
WHERE p.tenant = $tenant
SET p.learned = true
RETURN p.id AS id
