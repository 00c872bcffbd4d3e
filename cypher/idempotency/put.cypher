// params: tenant, key, request_hash, result, episode_ids, now
// returns: key
// The record CITES the episodes its batch cited: forgetting their contributor deletes it with
// them (forget.delete_episodes), so a replay of the key then answers as for a fresh key.
MERGE (i:IdempotencyKey {tenant: $tenant, key: $key})
ON CREATE SET i.request_hash = $request_hash, i.result = $result, i.created_at = $now
WITH i
CALL (i) {
  UNWIND $episode_ids AS eid
  MATCH (e:Episode {id: eid})
  WHERE e.tenant = $tenant
  MERGE (i)-[:CITES]->(e)
}
RETURN i.key AS key
