// params: rows
// returns: key, id
// Labels are parameters (dynamic labels), checked against the export format's rules first.
UNWIND $rows AS row
CREATE (n:$(row.labels))
SET n = row.props
// An export from before schema 150 has no search term: every memory gets its own.
#include search/_kind(n)
RETURN row.key AS key, elementId(n) AS id
