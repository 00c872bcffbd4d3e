// params: tenant, contributors, limit
// returns: ids, procedures, judged
// The next $limit episodes of these contributors, once no fact cites any of them (the last
// batches of a purge: episodes whose facts are done, or that never backed one), as
// forget/_freed returns them.
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
MATCH (u)<-[:CONTRIBUTED_BY]-(e:Episode)
// A digest goes with the compaction's residue, which also serves its other members again.
WHERE NOT coalesce(e.digest, false)
WITH e LIMIT $limit
#include forget/_freed(e)
