// params: tenant, id, job_id, extractor
// returns: id
// Which job and extractor (prompt version) produced the episode: a later, better extractor
// can find what to re-run.
MATCH (e:Episode {id: $id})
WHERE e.tenant = $tenant
SET e.ingest_job = $job_id, e.extractor = $extractor
RETURN e.id AS id
