// params: tenant, scopes, kinds, vector, content_vector, content_search, k, lucene, include_candidates, as_of, valid_at, include_expired, include_unverified, tiers, procedure_statuses, intent, role
// returns: fact_rows, fact_raw, episode_rows, episode_raw, procedure_rows, procedure_raw, memo_rows, memo_raw
// Recall's first round of candidates: the search of every kind asked for (`kinds`), in one
// statement. Each kind alone (recall.facts, .episodes, .procedures, .memos) is the same search
// (recall/_*_search), which the service reruns with a larger k for a kind the in-force filter
// left short. Why one statement: under load most of the service's time went on the round
// trips, not the rows (bench/load.py, py-spy: every query costs the driver half a
// millisecond of Python and a socket write, and recall ran four of them for this). A kind not
// asked for, or with no hits, answers an empty list and 0 hits.
CYPHER 25
#include forget/_hidden
OPTIONAL CALL (hidden) {
  WITH hidden WHERE 'fact' IN $kinds
#include recall/_fact_search
}
WITH hidden, coalesce(rows, []) AS fact_rows, coalesce(raw_hits, 0) AS fact_raw
OPTIONAL CALL (hidden) {
  WITH hidden WHERE 'episode' IN $kinds
#include recall/_episode_search
}
WITH hidden, fact_rows, fact_raw,
     coalesce(rows, []) AS episode_rows, coalesce(raw_hits, 0) AS episode_raw
OPTIONAL CALL (hidden) {
  WITH hidden WHERE 'procedure' IN $kinds
#include recall/_procedure_search
}
WITH hidden, fact_rows, fact_raw, episode_rows, episode_raw,
     coalesce(rows, []) AS procedure_rows, coalesce(raw_hits, 0) AS procedure_raw
OPTIONAL CALL (hidden) {
  WITH hidden WHERE 'memo' IN $kinds
#include recall/_memo_search
}
RETURN fact_rows, fact_raw, episode_rows, episode_raw, procedure_rows, procedure_raw,
       coalesce(rows, []) AS memo_rows, coalesce(raw_hits, 0) AS memo_raw
