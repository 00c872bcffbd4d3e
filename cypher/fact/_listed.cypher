// The winning versions of a fact listing: served as they stood at as_of (not past their TTL
// unless asked, flagged as asked), newest recorded first, after the page cursor.
MATCH (s)-[:WINS]->(f:Fact)
WHERE NOT
#include forget/_hidden_fact(f)
  AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
  AND ($needs_verification IS NULL OR $needs_verification =
#include fact/_flagged_at
      )
RETURN f {.*, embedding: null, text:
#include forget/_their_text(f)
          ,
          told_log_at: null, told_log: null,
#include fact/_state_times(f)
          } AS fact
ORDER BY s.recorded_at DESC, s.fact_id DESC
LIMIT $limit
