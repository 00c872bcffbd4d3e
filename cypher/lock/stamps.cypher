// params: tenant, scopes
// returns: scope, stamp
// The latest clock each scope's writers stamped their changes with, as committed (lock/stamp):
// a read as of a moment no later than it cannot change any more (services/read_basis.py). A
// scope never written has no lock, hence no stamp.
UNWIND $scopes AS scope
OPTIONAL MATCH (l:ScopeLock {tenant: $tenant, scope: scope})
RETURN scope, toString(l.stamp) AS stamp
