// params: tenant, user_id
// returns: jobs, memos
// Physically removes what ingestion kept of a forgotten contributor: their memos (events,
// todos) and ingest jobs (which hold their turns until extraction and item texts after it).
CALL () {
  MATCH (m:Memo)
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  DETACH DELETE m
  RETURN count(*) AS memos
}
CALL () {
  MATCH (j:IngestJob)
  WHERE j.tenant = $tenant AND j.user_id = $user_id
  DETACH DELETE j
  RETURN count(*) AS jobs
}
RETURN jobs, memos
