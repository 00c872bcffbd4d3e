// params: tenant, names, now, user_id
// returns: name
// Predicates that only the forgotten contributors' facts used and registered go with them
// (their names can be the contributor's words); one someone defined (definePredicates: an
// admin's, another user's) stays, unless a session token defined it for the forgotten user.
// The audit events of their registration keep who/when/what action, with the name replaced by
// a content-free stand-in.
UNWIND $names AS name
MATCH (p:Predicate {tenant: $tenant, name: name})
WHERE NOT EXISTS { MATCH (f:Fact) WHERE f.tenant = $tenant AND f.predicate = name }
  AND (p.defined_by IS NULL OR p.defined_for = $user_id)
CALL (p, name) {
  OPTIONAL MATCH (a:AuditEvent {tenant: $tenant, target_id: name})
  WHERE a.target_type = 'predicate'
  SET a.target_id = 'forgotten-predicate', a.before = null, a.after = null, a.reason = null,
      a.redacted_at = $now
}
DETACH DELETE p
RETURN name
