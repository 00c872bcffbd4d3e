// params: tenant, episode_ids
// returns: doomed, doomed_tiers, chained, shared, shared_inferred, worded
// Every fact version citing those episodes, split into the ones whose evidence is all theirs
// (`doomed`, excised, with their tiers in the same order; `chained` when they sit in a
// supersession chain) and the ones others also support (`shared`). A fact has at most one
// DERIVED_FROM edge per episode, so comparing its edges to these episodes with its
// DERIVED_FROM degree answers "only theirs" without scanning a list. `worded`: shared
// versions written citing one of their episodes (evidence linked when the version was
// recorded), whose text may be their words.
UNWIND $episode_ids AS eid
MATCH (e:Episode {id: eid})<-[d:DERIVED_FROM]-(f:Fact)
WHERE e.tenant = $tenant AND f.tenant = $tenant
WITH f, count(*) AS theirs, count(CASE WHEN d.at <= f.recorded_at THEN 1 END) > 0 AS wrote
WITH f, wrote, COUNT { (f)-[:DERIVED_FROM]->() } = theirs AS only
RETURN collect(CASE WHEN only THEN f.id END) AS doomed,
       collect(CASE WHEN only THEN f.tier END) AS doomed_tiers,
       collect(CASE WHEN only AND EXISTS { (f)-[:SUPERSEDES]-() } THEN f.id END) AS chained,
       collect(CASE WHEN NOT only THEN f.id END) AS shared,
       collect(CASE WHEN NOT only AND f.tier = 'inferred' THEN f.id END) AS shared_inferred,
       collect(CASE WHEN NOT only AND wrote THEN {
         id: f.id, subject: f.subject_name, predicate: f.predicate, object: f.object,
         text: f.text} END) AS worded
