// params: tenant, slots
// returns: scope, subject, predicate, id, object_key, tier, status, version, expires_ms, max_version
// The versions currently believed for each (scope, subject, predicate) slot, and the highest
// version number the slot ever had (retracted ones included: numbering never restarts).
UNWIND $slots AS slot
CALL (slot) {
  MATCH (v:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                 predicate: slot.predicate})
  RETURN max(v.version) AS max_version
}
OPTIONAL MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
                        predicate: slot.predicate})
WHERE f.superseded_at IS NULL AND f.retracted_at IS NULL AND f.status <> 'rejected'
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate,
       f.id AS id, f.object_key AS object_key, f.tier AS tier, f.status AS status,
       f.version AS version,
       // Epoch millis, not a datetime: decoding a datetime per row costs more than the query.
       f.expires_at.epochMillis AS expires_ms,
       coalesce(max_version, 0) AS max_version
