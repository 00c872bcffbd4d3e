// The winning versions of a fact listing: served as they stood at as_of (not past their TTL
// unless asked, flagged as asked), newest recorded first, after the page cursor. A winner
// a forget in flight changes (forget/_touched_view) is not served as stored: its
// slot comes back in `touched` instead, and the reader resolves it as the purge will leave
// it (repositories/shadow.py).
MATCH (s)-[:WINS]->(f:Fact)
WITH hidden, s, f,
#include forget/_touched_view(f)
     AS touched
WHERE touched OR
#include fact/_listed_where
RETURN CASE WHEN touched THEN null ELSE
#include fact/_listed_fact(f)
       END AS fact,
       CASE WHEN touched THEN {scope: f.scope, subject: f.subject, predicate: f.predicate}
       END AS touched
ORDER BY s.recorded_at DESC, s.fact_id DESC
LIMIT $limit
