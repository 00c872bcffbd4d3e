// params: now
// returns: tenant
// Operations only (the CLI sweep): which tenants have facts due to expire. Returns tenant ids,
// never content; every per-tenant step after this is tenant-scoped as usual.
MATCH (t:Tenant)
WHERE EXISTS {
  MATCH (f:Fact {tenant: t.id})
  WHERE f.expires_at <= $now AND f.status IN ['active', 'candidate']
    AND f.superseded_at IS NULL AND f.retracted_at IS NULL
}
RETURN t.id AS tenant
