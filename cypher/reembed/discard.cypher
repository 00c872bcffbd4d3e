// params: kind, after, limit
// returns: id
// An abandoned run: a batch of one kind's staged vectors is dropped (the live ones were never
// touched), in id order after the cursor.
CYPHER 25
CALL () {
  WITH 1 AS go WHERE $kind = 'fact'
  MATCH (n:Fact) WHERE n.id > $after AND n.embedding_next IS NOT NULL
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'episode'
  MATCH (n:Episode) WHERE n.id > $after AND n.embedding_next IS NOT NULL
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'memo'
  MATCH (n:Memo) WHERE n.id > $after AND n.embedding_next IS NOT NULL
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'procedure'
  MATCH (n:Procedure) WHERE n.id > $after AND n.embedding_next IS NOT NULL
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'entity'
  MATCH (n:Entity) WHERE n.id > $after AND n.name_embedding_next IS NOT NULL
  RETURN n ORDER BY n.id LIMIT $limit
}
WITH n ORDER BY n.id LIMIT $limit
REMOVE n.embedding_next, n.name_embedding_next, n.reembed_source
RETURN n.id AS id
