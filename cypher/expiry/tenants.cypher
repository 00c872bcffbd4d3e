// params: now
// returns: tenant
// Operations only (the CLI sweep): which tenants have facts due to expire. Returns tenant ids,
// never content; every per-tenant step after this is tenant-scoped as usual.
MATCH (f:Fact)
WHERE f.expires_at <= $now AND f.status IN ['active', 'candidate']
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
RETURN DISTINCT f.tenant AS tenant
