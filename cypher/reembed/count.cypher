// params:
// returns: fact, episode, memo, procedure, entity, digest
// How many nodes of each kind carry a vector: the progress bar's total.
CYPHER 25
CALL () { MATCH (n:Fact) WHERE n.embedding IS NOT NULL RETURN count(n) AS fact }
CALL () {
  MATCH (n:Episode) WHERE n.embedding IS NOT NULL AND NOT coalesce(n.digest, false)
  RETURN count(n) AS episode
}
CALL () { MATCH (n:Memo) WHERE n.embedding IS NOT NULL RETURN count(n) AS memo }
CALL () { MATCH (n:Procedure) WHERE n.embedding IS NOT NULL RETURN count(n) AS procedure }
CALL () { MATCH (n:Entity) WHERE n.name_embedding IS NOT NULL RETURN count(n) AS entity }
CALL () {
  MATCH (n:Episode) WHERE n.embedding IS NOT NULL AND n.digest = true RETURN count(n) AS digest
}
RETURN fact, episode, memo, procedure, entity, digest
