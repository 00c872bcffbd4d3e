// params: tenant, id, now, actor, reason
// returns: memo, before
// Closing a todo keeps it: "done since T, by whom" stays answerable.
MATCH (m:Memo {id: $id})
WHERE m.tenant = $tenant AND m.kind = 'todo'
WITH m, m.status AS before
SET m.status = 'done', m.closed_at = coalesce(m.closed_at, $now),
    m.closed_by = coalesce(m.closed_by, $actor), m.close_reason = coalesce(m.close_reason, $reason)
RETURN m {.*, embedding: null} AS memo, before
