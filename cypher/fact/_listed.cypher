// The winning versions of a fact listing: served as they stood at as_of (not past their TTL
// unless asked, flagged as asked), newest recorded first, after the page cursor. A winner
// a forget in flight changes (forget/_touched_view) is not served as stored: its slot comes
// back in `touched` instead, and the reader resolves it as the purge will leave it
// (repositories/shadow.py); one only forgotten contributors support, in a slot nobody else
// told, answers nothing then and is left out here, so that a purge of many facts does not
// fill the page with rows that resolve to nothing. `at`, `at_id`: the row's place in the
// order, for the reader to ask for more rows when touched ones came to less; `forgetting`:
// a forget runs in the tenant.
MATCH (s)-[:WINS]->(f:Fact)
// (A version a purge batch deleted while this read comes back without its properties.)
WHERE f.recorded_at IS NOT NULL
WITH hidden, s, f,
#include forget/_touched_view(f)
     AS touched
WHERE (touched AND NOT (
#include forget/_hidden_fact(f)
        AND NOT EXISTS { MATCH (o:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                                        predicate: f.predicate})
                         WHERE o <> f AND NOT
#include forget/_hidden_fact(o)
                       }))
   OR (NOT touched AND
#include fact/_listed_where
      )
RETURN CASE WHEN touched THEN null ELSE
#include fact/_listed_fact(f)
       END AS fact,
       CASE WHEN touched THEN {scope: f.scope, subject: f.subject, predicate: f.predicate}
       END AS touched,
       s.recorded_at AS at, s.fact_id AS at_id, size(hidden) > 0 AS forgetting
ORDER BY s.recorded_at DESC, s.fact_id DESC
LIMIT $limit
