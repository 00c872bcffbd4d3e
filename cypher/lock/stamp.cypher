// params: locks, tenants, stamp
// returns: stamped
// At the commit of a write that stamped its changes with $stamp: the scope locks it holds
// (locks: {tenant, scope}; tenants: every scope lock of these) remember it, so the next writer
// of those scopes stamps after it even if its own process's clock runs behind (lock/_scopes).
// Never moves a stamp back.
CALL () {
  UNWIND $locks AS k
  MATCH (l:ScopeLock {tenant: k.tenant, scope: k.scope})
  RETURN l
  UNION
  UNWIND $tenants AS t
  MATCH (l:ScopeLock {tenant: t})
  WHERE l.scope IS NOT NULL  // seeks the (tenant, scope) index, not every tenant's locks
  RETURN l
}
WITH l WHERE l.stamp IS NULL OR l.stamp < $stamp
SET l.stamp = $stamp
RETURN count(l) AS stamped
