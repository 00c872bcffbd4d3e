// params: tenant, label, stand_in
// returns: marks
// What survives of what a session token serving the forgotten user did to others' memories:
// a fact it wrote that others also support, a fact or a todo it retracted or closed. The
// marks name the key and a stand-in for the user, and the reason they gave goes (their words).
// Found by suffix through the text indexes (schema 100), not by a scan of the tenant.
CALL () {
  MATCH (f:Fact)
  USING TEXT INDEX f:Fact(created_by)
  WHERE f.created_by ENDS WITH $label AND f.tenant = $tenant
  SET f.created_by = left(f.created_by, size(f.created_by) - size($label)) + $stand_in
  RETURN count(f) AS created
}
CALL () {
  MATCH (f:Fact)
  USING TEXT INDEX f:Fact(retracted_by)
  WHERE f.retracted_by ENDS WITH $label AND f.tenant = $tenant
  SET f.retracted_by = left(f.retracted_by, size(f.retracted_by) - size($label)) + $stand_in,
      f.retract_reason = null
  RETURN count(f) AS retracted
}
CALL () {
  MATCH (m:Memo)
  USING TEXT INDEX m:Memo(closed_by)
  WHERE m.closed_by ENDS WITH $label AND m.tenant = $tenant
  SET m.closed_by = left(m.closed_by, size(m.closed_by) - size($label)) + $stand_in,
      m.close_reason = null
  RETURN count(m) AS closed
}
RETURN created + retracted + closed AS marks
