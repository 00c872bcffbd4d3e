// params: tenant, ids, as_of
// returns: id, helpful, harmful
// Each fact's or episode's outcome counts as they stood at as_of (outcome/_verdicts): a recall
// as of a past moment judges salience on the verdicts told by then, not on later reports.
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
WITH coalesce(f, e) AS m, $as_of AS verdicts_until
WHERE m IS NOT NULL
#include outcome/_verdicts(m)
RETURN m.id AS id, helpful, harmful
