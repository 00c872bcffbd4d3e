// recall.facts / recall.procedures search a scope's vectors only when the scope has any of
// that kind (one seek here instead of a filtered HNSW search that finds nothing); episodes
// already have episode_scope on (tenant, scope).
CREATE INDEX fact_scope IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope);
CREATE INDEX procedure_scope IF NOT EXISTS FOR (p:Procedure) ON (p.tenant, p.scope);
