// params: tenant, scopes, vector, content_vector, k, lucene, procedure_statuses, as_of, intent, role
// returns: rows, raw_hits
// Hybrid candidates among procedures: the version current at as_of, of an allowed status,
// and of the requested intent/role when the caller names them (procedures are served only
// for a matching intent; without one the service requires a close semantic match), never
// one only forgotten contributors' sessions evidence (forget/_hidden_procedure).
CYPHER 25
#include forget/_hidden
#include recall/_procedure_search
