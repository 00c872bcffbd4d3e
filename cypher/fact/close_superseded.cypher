// params: tenant, rows, now
// returns: closed
// Links each new version to the one it supersedes (rows: old, new) and, for a new version
// served as truth at once (row.active), ends the old one (fact/_close_linked); a candidate
// ends it when promoted. Returns the ids it ended.
UNWIND $rows AS row
MATCH (old:Fact {id: row.old})
WHERE old.tenant = $tenant AND old.superseded_at IS NULL
MATCH (new:Fact {id: row.new})
WHERE new.tenant = $tenant
CREATE (new)-[:SUPERSEDES]->(old)
WITH new, row
OPTIONAL CALL (new, row) {
  WITH new WHERE row.active
#include fact/_close_linked(new)
}
RETURN closed
