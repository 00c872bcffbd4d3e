// params: tenant, user_id
// returns: ids
// The contributor's episodes: those they own, and any linked only to them. One row with a
// list: thousands of ids travel far faster as one value than as thousands of records.
CALL () {
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id})
  RETURN e.id AS id
  UNION
  MATCH (:User {tenant: $tenant, id: $user_id})<-[:CONTRIBUTED_BY]-(e:Episode)
  WHERE e.tenant = $tenant
    AND NOT EXISTS { MATCH (e)-[:CONTRIBUTED_BY]->(o:User) WHERE o.id <> $user_id }
  RETURN e.id AS id
}
RETURN collect(DISTINCT id) AS ids
