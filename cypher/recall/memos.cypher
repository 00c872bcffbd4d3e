// params: tenant, scopes, vector, content_vector, content_search, k, lucene, as_of, valid_at, include_expired, tiers
// returns: rows, raw_hits
// Hybrid candidates among memos (the events and todos ingestion extracted): as believed at
// as_of (recorded by then; a todo still open then: one closed since was open at that moment),
// not past their TTL at as_of (unless expired ones are asked for, as for facts), in the world
// at valid_at (an event from when it happened or was told, whichever is first: a scheduled
// one is known from the session that told it; a todo from the session that asked for it, as
// an episode is from when it started), never one whose episode is gone or only a forgotten
// contributor gave.
// A done todo is settled business: `memos(statuses: ["done"])` lists it, recall does not.
CYPHER 25
#include forget/_hidden
#include recall/_memo_search
