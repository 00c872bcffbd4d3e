// params: tenant, id, now, actor, acted_for, reason
// returns: memo, before
// Closing a todo keeps it: "done since T, by whom" stays answerable. The first close stands;
// `acted_for` (the user a session token closed it for) goes with its closer.
MATCH (m:Memo {id: $id})
WHERE m.tenant = $tenant AND m.kind = 'todo'
WITH m, m.status AS before, m.closed_by IS NULL AS first
SET m.status = 'done', m.closed_at = coalesce(m.closed_at, $now),
    m.closed_by = coalesce(m.closed_by, $actor), m.close_reason = coalesce(m.close_reason, $reason),
    m.closed_for = CASE WHEN first THEN $acted_for ELSE m.closed_for END
RETURN m {.*, embedding: null} AS memo, before
