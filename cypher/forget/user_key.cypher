// params: tenant, user_id
// returns: key, salt
// The contributor a user id names now (a forgotten one no longer answers to the id), and the
// tenant's receipt salt (made at its first forget): a forget's receipt is keyed with it, so
// the audit log's receipt cannot be matched to the user by hashing their id (or a name
// hashed the same way elsewhere, an entity's id). Run under the tenant lock.
MATCH (t:Tenant {id: $tenant})
SET t.receipt_salt = coalesce(t.receipt_salt, randomUUID())
WITH t
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
RETURN u.key AS key, t.receipt_salt AS salt
