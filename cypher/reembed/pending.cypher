// params: kind, mode, dimensions, after, limit
// returns: id, text, intent, description, members
// The next batch of one kind's embedded nodes, in id order after the cursor (an index range
// seek, so a batch costs its size however far the run has got). mode 'stage': nodes whose
// new vector is not staged yet, or whose text changed since it was (a forget rewords a fact);
// mode 'fix': nodes whose live vector is not of the target size (a write that embedded with
// the old model while the switch ran). The kind is one of graph_memory/services/store/reembed.py's
// KINDS; each branch is guarded by it, so only one index is read. A digest's vector is the
// mean of its members' (consolidation_compaction), so its members' vectors come back with it.
CYPHER 25
CALL () {
  WITH 1 AS go WHERE $kind = 'fact'
  MATCH (n:Fact) WHERE n.id > $after AND n.embedding IS NOT NULL
    AND CASE $mode WHEN 'stage' THEN n.embedding_next IS NULL OR n.reembed_source <> n.text
                   ELSE size(n.embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'episode'
  MATCH (n:Episode) WHERE n.id > $after AND n.embedding IS NOT NULL AND NOT coalesce(n.digest, false)
    AND CASE $mode WHEN 'stage' THEN n.embedding_next IS NULL OR n.reembed_source <> n.text
                   ELSE size(n.embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'memo'
  MATCH (n:Memo) WHERE n.id > $after AND n.embedding IS NOT NULL
    AND CASE $mode WHEN 'stage' THEN n.embedding_next IS NULL OR n.reembed_source <> n.text
                   ELSE size(n.embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'procedure'
  MATCH (n:Procedure) WHERE n.id > $after AND n.embedding IS NOT NULL
    AND CASE $mode WHEN 'stage' THEN n.embedding_next IS NULL
                   ELSE size(n.embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'entity'
  MATCH (n:Entity) WHERE n.id > $after AND n.name_embedding IS NOT NULL
    AND CASE $mode WHEN 'stage' THEN n.name_embedding_next IS NULL OR n.reembed_source <> n.key
                   ELSE size(n.name_embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS go WHERE $kind = 'digest'
  MATCH (n:Episode) WHERE n.id > $after AND n.embedding IS NOT NULL AND n.digest = true
    AND CASE $mode WHEN 'stage' THEN n.embedding_next IS NULL
                   ELSE size(n.embedding) <> $dimensions END
  RETURN n ORDER BY n.id LIMIT $limit
}
RETURN n.id AS id, CASE $kind WHEN 'entity' THEN n.key WHEN 'digest' THEN n.summary ELSE n.text END AS text,
       n.intent AS intent, n.description AS description,
       CASE $kind WHEN 'digest' THEN [(n)-[:DERIVED_FROM]->(m:Episode) | coalesce(m.embedding_next, m.embedding)]
                  ELSE null END AS members
ORDER BY id
LIMIT $limit
