// params: kind, after, limit
// returns: id
// The switch: a batch of one kind's staged vectors becomes the live one, in id order after
// the cursor. Digests are episodes, switched with them.
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
FOREACH (_ IN CASE WHEN $kind = 'entity' THEN [1] ELSE [] END |
  SET n.name_embedding = n.name_embedding_next REMOVE n.name_embedding_next)
FOREACH (_ IN CASE WHEN $kind <> 'entity' THEN [1] ELSE [] END |
  SET n.embedding = n.embedding_next REMOVE n.embedding_next)
REMOVE n.reembed_source
RETURN n.id AS id
