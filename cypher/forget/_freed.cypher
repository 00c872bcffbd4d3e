// The episodes a purge batch deletes (@node, one row each), as forget.free_episodes and
// forget.batch_episodes return them: one row of lists (per episode, its procedures, which the
// service merges) and the episodes that reported outcomes (forget.drop_outcomes runs for those
// alone).
CALL (@node) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(@node)
  WHERE p.tenant = $tenant
  RETURN collect(p.id) AS procedures
}
RETURN collect(@node.id) AS ids, collect(procedures) AS procedures,
       collect(CASE WHEN EXISTS { (@node)-[:LED_TO]->() } THEN @node.id END) AS judged
