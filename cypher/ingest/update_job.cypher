// params: tenant, id, owner, changes
// returns: id
// A checkpoint, lease renewal, release or completion, applied only while the caller still
// holds the lease: a worker whose lease expired and was taken over changes nothing.
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant AND j.lease_owner = $owner AND j.status = 'running'
SET j += $changes
RETURN j.id AS id
