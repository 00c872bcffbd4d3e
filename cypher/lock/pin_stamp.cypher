// params: tenant, scopes, as_of
// returns: pinned, unwritten
// After lock/pin in the same transaction, its locks held: each lock's stamp raised to $as_of,
// so every later writer of the scope stamps after it (lock/_scopes, temporal/clock.py). A lock
// the pin made for a scope never written is not kept: a read leaves nothing behind (a
// forgotten user's scope name included).
UNWIND $scopes AS scope
MATCH (l:ScopeLock {tenant: $tenant, scope: scope})
WITH scope, l, l.unwritten IS NOT NULL AS made
WITH scope, l, made, NOT made AND (l.stamp IS NULL OR l.stamp < $as_of) AS behind
FOREACH (_ IN CASE WHEN behind THEN [1] ELSE [] END | SET l.stamp = $as_of)
FOREACH (_ IN CASE WHEN made THEN [1] ELSE [] END | DELETE l)
RETURN sum(CASE WHEN behind THEN 1 ELSE 0 END) AS pinned,
       [s IN collect(CASE WHEN made THEN scope END) WHERE s IS NOT NULL] AS unwritten
