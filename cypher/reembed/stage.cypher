// params: kind, mode, rows
// returns: id
// Writes one batch's new vectors: staged beside the live one (mode 'stage': `embedding_next`,
// with the text it was made from, so a text changed since is noticed) while reads keep using
// the live vector and its index, or straight into the live vector (mode 'fix'). Through the
// procedure so the vector is kept as the float32 array the index expects.
CYPHER 25
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE $kind = 'fact'
  MATCH (n:Fact {id: row.id}) RETURN n
  UNION
  WITH row WHERE $kind IN ['episode', 'digest']
  MATCH (n:Episode {id: row.id}) RETURN n
  UNION
  WITH row WHERE $kind = 'memo'
  MATCH (n:Memo {id: row.id}) RETURN n
  UNION
  WITH row WHERE $kind = 'procedure'
  MATCH (n:Procedure {id: row.id}) RETURN n
  UNION
  WITH row WHERE $kind = 'entity'
  MATCH (n:Entity {id: row.id}) RETURN n
}
CALL db.create.setNodeVectorProperty(n,
  CASE $kind WHEN 'entity' THEN 'name_embedding' ELSE 'embedding' END
    + CASE $mode WHEN 'stage' THEN '_next' ELSE '' END,
  row.vector)
SET n.reembed_source = CASE $mode WHEN 'stage' THEN row.source ELSE null END
RETURN n.id AS id
