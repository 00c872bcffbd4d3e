// params: tenant, scopes
// returns: tenant_seq, scope_seqs
// The write counters of the tenant lock and of these scopes' locks (every writer bumps the
// ones it takes). A run records them after each batch; equal counters later (less the
// reader's own bump) prove nothing else wrote in between, so a rollback can skip comparing
// every memory's fingerprint.
OPTIONAL MATCH (t:Tenant {id: $tenant})
CALL () {
  UNWIND $scopes AS scope
  OPTIONAL MATCH (l:ScopeLock {tenant: $tenant, scope: scope})
  WITH scope, coalesce(l.seq, 0) AS seq ORDER BY scope
  RETURN collect(seq) AS scope_seqs
}
RETURN coalesce(t.write_seq, 0) AS tenant_seq, scope_seqs
