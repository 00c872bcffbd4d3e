// params: tenant, fact_ids
// returns: id
// When a surviving version was said, from the evidence left once the contributors' support is
// withdrawn: the same log fact.create and fact.add_evidence write (told_log_at[i]: the belief
// moment from which told_log[i] holds), replayed over the remaining links in the order they
// were made. A version a forgotten contributor told again in a later session is said when the
// others said it, so an undated claim of theirs no longer outranks a value told in between.
// Returns the versions whose log changed: their slots' timelines are rebuilt.
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WHERE f.tenant = $tenant
CALL (f) {
  MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  WITH coalesce(d.at, f.recorded_at) AS at, max(e.started_at) AS said
  ORDER BY at
  RETURN collect({at: at, said: said}) AS links
}
WITH f, reduce(log = {at: [], told: [], top: null}, l IN links |
  CASE
    WHEN log.top IS NULL THEN {at: [f.recorded_at], told: [l.said], top: l.said}
    WHEN l.said > log.top THEN {at: log.at + l.at, told: log.told + l.said, top: l.said}
    ELSE log END) AS log
WITH f, log
WHERE log.top IS NOT NULL
  AND (log.at <> coalesce(f.told_log_at, []) OR log.told <> coalesce(f.told_log, []))
SET f.told_log_at = log.at, f.told_log = log.told, f.told_at = log.top
RETURN f.id AS id
