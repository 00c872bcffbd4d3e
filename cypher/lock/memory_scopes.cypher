// params: tenant, ids
// returns: scope
// The scopes these facts and episodes live in (a change to them, such as an outcome report,
// locks those: repositories/locks.py).
CALL () {
  MATCH (f:Fact)
  WHERE f.id IN $ids AND f.tenant = $tenant
  RETURN f.scope AS scope
  UNION
  MATCH (e:Episode)
  WHERE e.id IN $ids AND e.tenant = $tenant
  RETURN e.scope AS scope
}
RETURN DISTINCT scope
