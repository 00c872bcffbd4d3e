// params: tenant, scopes, ids
// returns: fact_id, episode_id, session_id, user_id, turns, extractor, turns_json
// The turns each fact's evidence rests on, per episode, as ingestion recorded them, with the
// session's raw turns when the tenant keeps them (null otherwise). From a forget's commit on,
// a forgotten contributor's episodes (and a fact resting on them alone) are not answered
// here, as in fact/provenance: their words go before the purge deletes them.
#include forget/_hidden
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant AND f.scope IN $scopes
WITH f, hidden WHERE NOT
#include forget/_hidden_fact(f)
MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
WHERE d.turns IS NOT NULL AND NOT
#include forget/_hidden_episode(e)
OPTIONAL MATCH (j:IngestJob {id: d.ingest_job})
WHERE j.tenant = $tenant AND j.status IN ['done', 'nothing']
RETURN f.id AS fact_id, e.id AS episode_id, e.session_id AS session_id, e.user_id AS user_id,
       d.turns AS turns, d.extractor AS extractor, j.turns_json AS turns_json
ORDER BY fact_id, episode_id
