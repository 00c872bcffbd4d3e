// params: tenant, id
// returns: job
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant
RETURN j {.*} AS job
