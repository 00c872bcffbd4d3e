// params: tenant, scope
// returns: dropped
// The forgotten user's own scope lock (user:<id>: its name is their id), once nothing of the
// scope is left. Run at the purge's end under every scope lock; a writer of the same user id
// waiting for it goes on with a lock its MERGE makes anew (test_write_locks.py). Kept when
// the same id has written there since the forget (a new contributor).
MATCH (l:ScopeLock {tenant: $tenant, scope: $scope})
WHERE NOT EXISTS { MATCH (f:Fact {tenant: $tenant, scope: $scope}) }
  AND NOT EXISTS { MATCH (s:Segment {tenant: $tenant, scope: $scope}) WHERE s.subject IS NOT NULL }
  AND NOT EXISTS { MATCH (e:Episode {tenant: $tenant, scope: $scope}) }
  AND NOT EXISTS { MATCH (m:Memo)
                   WHERE m.tenant = $tenant AND m.scope = $scope AND m.kind IS NOT NULL }
  AND NOT EXISTS { MATCH (p:Procedure) WHERE p.tenant = $tenant AND p.scope = $scope }
  AND NOT EXISTS { MATCH (j:IngestJob)
                   WHERE j.tenant = $tenant AND j.user_id IS NOT NULL
                     AND j.session_id IS NOT NULL AND j.scope = $scope }
DELETE l
RETURN count(l) AS dropped
