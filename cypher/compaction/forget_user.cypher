// params: tenant, user_id
// returns: digests, members
// Forgetting a contributor reaches through digests: every digest one of their episodes went
// into is deleted (its text came from theirs), and its other members are served again on
// their own (a later run may compact them anew).
MATCH (d:Episode {tenant: $tenant})
WHERE d.digest = true AND $user_id IN coalesce(d.member_users, [])
CALL (d) {
  OPTIONAL MATCH (m:Episode {tenant: $tenant})
  WHERE m.compacted_into = d.id
  REMOVE m.compacted_into, m.compacted_run, m.compacted_at
  RETURN count(m) AS members
}
WITH d, members
DETACH DELETE d
RETURN count(*) AS digests, sum(members) AS members
