// params: tenant, scopes
// returns: scope
// Write locks per scope, taken in the order given (sorted by the caller, so two writers never
// wait on each other in a circle): writers of different scopes of one tenant run in
// parallel; writers of one scope (its slots, its capacity) one after the other. MERGE on the
// unique (tenant, scope) makes a first lock of a new scope safe to race.
UNWIND $scopes AS scope
MERGE (l:ScopeLock {tenant: $tenant, scope: scope})
ON CREATE SET l.caption = 'lock ' + scope
SET l.seq = coalesce(l.seq, 0) + 1
RETURN scope
