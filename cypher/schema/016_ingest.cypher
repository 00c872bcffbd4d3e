// Session ingestion (issue 16): one job per (tenant, user, session), claimed through a lease;
// events and todos extracted from conversation are Memo nodes of their own kind.
CREATE CONSTRAINT ingest_job_id IF NOT EXISTS FOR (j:IngestJob) REQUIRE j.id IS UNIQUE;
CREATE CONSTRAINT ingest_job_session IF NOT EXISTS FOR (j:IngestJob) REQUIRE (j.tenant, j.user_id, j.session_id) IS UNIQUE;
CREATE INDEX ingest_job_claim IF NOT EXISTS FOR (j:IngestJob) ON (j.status, j.available_at);
CREATE CONSTRAINT memo_id IF NOT EXISTS FOR (m:Memo) REQUIRE m.id IS UNIQUE;
CREATE INDEX memo_scope IF NOT EXISTS FOR (m:Memo) ON (m.tenant, m.scope, m.kind);
CYPHER 25 CREATE VECTOR INDEX memo_embedding IF NOT EXISTS FOR (m:Memo) ON m.embedding WITH [m.tenant, m.scope] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX memo_text IF NOT EXISTS FOR (m:Memo) ON EACH [m.text, m.ft_scope];
