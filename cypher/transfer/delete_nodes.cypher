// params: ids
// returns: deleted
// Undo a failed import: the nodes it created, with their relationships.
UNWIND $ids AS id
MATCH (n) WHERE elementId(n) = id
DETACH DELETE n
RETURN count(*) AS deleted
