// params: name
// returns:
// A vector index made for another vector size (the name comes from vector_indexes, never
// from input); recreated from cypher/schema once the vectors are switched.
DROP INDEX $name IF EXISTS
