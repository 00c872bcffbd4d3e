// params: tenant, ids, scope, limit
// returns: run, changes
// Runs newest first (or the named ones), each with its diff in the order it was made.
MATCH (r:ConsolidationRun {tenant: $tenant})
WHERE ($ids IS NULL OR r.id IN $ids) AND ($scope IS NULL OR $scope IN r.scopes)
WITH r ORDER BY r.started_at DESC, r.id DESC LIMIT $limit
CALL (r) {
  OPTIONAL MATCH (r)-[:CHANGED]->(x:ConsolidationChange)
  WITH x ORDER BY x.seq
  RETURN collect(x {.*}) AS changes
}
RETURN r {.*} AS run, changes
ORDER BY r.started_at DESC, r.id DESC
