// Vector indexes carry their scope properties as in-index filters, so a tenant/scope filter
// runs inside the HNSW search instead of after it (post-filtering loses recall).
// $dimensions comes from the configured embedder and is recorded by the migrator.
CYPHER 25 CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding WITH [f.tenant, f.scope] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (e:Episode) ON e.embedding WITH [e.tenant, e.scope] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX procedure_embedding IF NOT EXISTS FOR (p:Procedure) ON p.embedding WITH [p.tenant, p.scope] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
// Full-text: ft_scope is an opaque hex token of (tenant, scope), required as a Lucene clause.
// Raw ids would be split by the analyzer on '-', letting tenant 'acme' match 'acme-2'.
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.ft_scope];
CREATE FULLTEXT INDEX episode_text IF NOT EXISTS FOR (e:Episode) ON EACH [e.text, e.ft_scope];
CREATE FULLTEXT INDEX procedure_text IF NOT EXISTS FOR (p:Procedure) ON EACH [p.text, p.ft_scope];
