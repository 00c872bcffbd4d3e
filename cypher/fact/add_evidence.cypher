// params: tenant, rows, now
// returns: id, added
// Re-asserting the current object adds evidence to that version instead of a new version.
// Told again in a later session, the version was said at its latest telling: told_at moves
// (told_log keeps every move, so reads as of before any of them are unchanged).
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
UNWIND row.citations AS c
MATCH (e:Episode {id: c.episode_id})
WHERE e.tenant = $tenant
OPTIONAL MATCH (f)-[existing:DERIVED_FROM]->(e)
MERGE (f)-[d:DERIVED_FROM]->(e)
ON CREATE SET d.weight = c.weight, d.at = $now, d.tier = c.tier, d.claim_source = c.claim_source,
              // What this telling said (fact/create): the version is rebuilt from it when
              // the tellings before it are forgotten.
              d.claim_from = datetime(c.claim_from), d.claim_to = datetime(c.claim_to),
              d.claim_stated = c.claim_stated
WITH f, collect(existing IS NULL) AS adds, max(e.started_at) AS said
CALL (f, said) {
  WITH f, said
  WHERE said > coalesce(f.told_at, f.recorded_at)
  SET f.told_log_at = coalesce(f.told_log_at, [f.recorded_at]) + $now,
      f.told_log = coalesce(f.told_log, [coalesce(f.told_at, f.recorded_at)]) + said,
      f.told_at = said
}
RETURN f.id AS id, any(a IN adds WHERE a) AS added
