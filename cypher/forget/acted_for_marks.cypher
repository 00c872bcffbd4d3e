// params: tenant, user, label, stand_in
// returns: marks
// What survives of what a session token serving the forgotten user did to others' memories:
// a fact it wrote that others also support, a fact or a todo it retracted or closed. The
// marks name the key and a stand-in for the user, and the reason they gave goes (their words).
// Found by the user they were done for (`created_for`, `retracted_for`, `closed_for`: range
// indexes, schema 110), which go with the user's name.
CALL () {
  MATCH (f:Fact {tenant: $tenant, created_for: $user})
  SET f.created_by = CASE WHEN f.created_by ENDS WITH $label
                          THEN left(f.created_by, size(f.created_by) - size($label)) + $stand_in
                          ELSE f.created_by END,
      f.created_for = null
  RETURN count(f) AS created
}
CALL () {
  MATCH (f:Fact {tenant: $tenant, retracted_for: $user})
  SET f.retracted_by = CASE WHEN f.retracted_by ENDS WITH $label
                            THEN left(f.retracted_by, size(f.retracted_by) - size($label))
                                 + $stand_in
                            ELSE f.retracted_by END,
      f.retracted_for = null, f.retract_reason = null
  RETURN count(f) AS retracted
}
CALL () {
  MATCH (m:Memo {tenant: $tenant, closed_for: $user})
  SET m.closed_by = CASE WHEN m.closed_by ENDS WITH $label
                         THEN left(m.closed_by, size(m.closed_by) - size($label)) + $stand_in
                         ELSE m.closed_by END,
      m.closed_for = null, m.close_reason = null
  RETURN count(m) AS closed
}
RETURN created + retracted + closed AS marks
