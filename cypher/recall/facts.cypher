// params: tenant, scopes, vector, content_vector, content_search, k, lucene, include_candidates, as_of, valid_at, include_expired, include_unverified, tiers
// returns: rows, raw_hits
// Hybrid candidates for recall: the k nearest facts per scope from the vector index (the
// tenant/scope filter runs inside the HNSW search) plus the k best full-text hits (scoped by
// the opaque ft_scope token inside the Lucene query). The in-force filter is the stored
// timeline's (cypher/timeline/_in_force), applied after the search. Keyword-only hits get
// their cosine computed here, so every candidate carries a true vector score. Scores are raw: the service normalises them.
// Only what scoring needs comes back (times as epoch millis: cheap to decode); the
// survivors are hydrated by recall.hydrate.
CYPHER 25
#include forget/_hidden
#include recall/_fact_search
