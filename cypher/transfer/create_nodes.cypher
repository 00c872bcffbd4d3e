// params: rows
// returns: key, id
// Labels are parameters (dynamic labels), checked against the export format's rules first.
UNWIND $rows AS row
CREATE (n:$(row.labels))
SET n = row.props
RETURN row.key AS key, elementId(n) AS id
