// params: tenant, episode_id, rows, job_id, extractor
// returns: fact_id
// Turn provenance: the evidence a fact draws from this episode rests on these turns, found by
// this extractor. Kept on the DERIVED_FROM edge, since a fact corroborated by several
// sessions rests on different turns of each.
UNWIND $rows AS row
MATCH (f:Fact {id: row.fact_id})-[d:DERIVED_FROM]->(e:Episode {id: $episode_id})
WHERE f.tenant = $tenant
SET d.turns = row.turns, d.extractor = $extractor, d.ingest_job = $job_id,
    f.extracted_by = CASE WHEN $extractor IN coalesce(f.extracted_by, []) THEN f.extracted_by
                          ELSE coalesce(f.extracted_by, []) + $extractor END
RETURN f.id AS fact_id
