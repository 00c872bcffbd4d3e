// params: rows
// returns: created
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.source
MATCH (b) WHERE elementId(b) = row.target
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
RETURN count(r) AS created
