// params: tenant, slots
// returns: scope, subject, predicate, id, object_key, tier, status, version, valid_from
// The versions currently believed for each (scope, subject, predicate) slot.
UNWIND $slots AS slot
MATCH (f:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject, predicate: slot.predicate})
WHERE f.superseded_at IS NULL AND f.retracted_at IS NULL AND f.status <> 'rejected'
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate,
       f.id AS id, f.object_key AS object_key, f.tier AS tier, f.status AS status,
       f.version AS version, f.valid_from AS valid_from
