// params: tenant, id
// returns: revoked
// Whether the API key (or the session token, or the key that minted it) that submitted a job
// was revoked since: a worker then does not run the job, since a revoked credential's queued
// work stops with it. An id that names neither (a job from before keys were recorded on
// jobs) counts as not revoked.
OPTIONAL MATCH (k:ApiKey {id: $id})
WHERE k.tenant = $tenant
OPTIONAL MATCH (t:SessionToken {id: $id})
WHERE t.tenant = $tenant
OPTIONAL MATCH (p:ApiKey {id: t.parent_id})
WHERE p.tenant = $tenant
RETURN k.revoked_at IS NOT NULL OR t.revoked_at IS NOT NULL OR p.revoked_at IS NOT NULL
       AS revoked
