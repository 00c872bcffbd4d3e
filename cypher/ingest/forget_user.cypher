// params: tenant, user_id, before
// returns: jobs, memos
// Physically removes what ingestion kept of a forgotten contributor: their memos (events,
// todos) and ingest jobs (which hold their turns until extraction and item texts after it),
// made before the forget ($before): what the user id said since is a new contributor's.
CALL () {
  MATCH (m:Memo)
  // scope and kind (always set) seek the (tenant, scope, kind) index: the tenant's memos only.
  WHERE m.tenant = $tenant AND m.scope IS NOT NULL AND m.kind IS NOT NULL
    AND m.user_id = $user_id
    AND ($before IS NULL OR m.recorded_at < $before)
  // Their audit events keep who/when/which action, not the caption (audit.redact's rule).
  CALL (m) {
    MATCH (a:AuditEvent {tenant: $tenant, target_id: m.id})
    SET a.before = null, a.after = null, a.reason = null, a.redacted_at = datetime()
  }
  DETACH DELETE m
  RETURN count(*) AS memos
}
CALL () {
  MATCH (j:IngestJob)
  WHERE j.tenant = $tenant AND j.user_id = $user_id AND j.session_id IS NOT NULL  // index seek
    AND ($before IS NULL OR j.created_at < $before)
  DETACH DELETE j
  RETURN count(*) AS jobs
}
RETURN jobs, memos
