// The winning versions of a fact listing: served as they stood at as_of (not past their TTL
// unless asked, flagged as asked), newest recorded first, after the page cursor.
MATCH (s)-[:WINS]->(f:Fact)
WHERE NOT
#include forget/_hidden_fact(f)
  AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
  AND ($needs_verification IS NULL OR $needs_verification =
#include fact/_flagged_at
      )
// Times as ISO text: the driver decodes a temporal value ~40x slower than Python parses text.
RETURN f {.*, embedding: null,
          recorded_at: toString(f.recorded_at), activated_at: toString(f.activated_at),
          valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
          expires_at: toString(f.expires_at), superseded_at: toString(f.superseded_at),
          successor_valid_from: toString(f.successor_valid_from),
          retracted_at: toString(f.retracted_at), flagged_at: toString(f.flagged_at),
          verified_at: toString(f.verified_at), told_at: toString(f.told_at),
          told_log_at: null, told_log: null,
          changes_at: [t IN coalesce(f.changes_at, []) | toString(t)],
          last_retrieved_at: toString(f.last_retrieved_at)} AS fact
ORDER BY s.recorded_at DESC, s.fact_id DESC
LIMIT $limit
