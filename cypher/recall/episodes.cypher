// params: tenant, scopes, vector, content_vector, content_search, k, lucene, as_of, valid_at
// returns: rows, raw_hits
// Hybrid candidates among episodes (same shape as recall.facts). An episode is in force once
// recorded (belief time) and once it has started (validity time): "what had happened by T".
CYPHER 25
#include forget/_hidden
#include recall/_episode_search
