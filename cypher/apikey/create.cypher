// params: id, hash, tenant, role, name, now
// returns: id
CREATE (k:ApiKey {id: $id, hash: $hash, tenant: $tenant, role: $role, name: $name,
                  created_at: $now, caption: $name + ' (' + $role + ')'})
RETURN k.id AS id
