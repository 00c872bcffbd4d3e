// params: tenant, slots
// returns: scope, subject, predicate, id, object_key, tier, status, version, expires_ms, valid_from_us, valid_to_us, valid_from_stated, told_us, max_version
// The versions currently believed for each (scope, subject, predicate) slot, and the highest
// version number the slot ever had (retracted ones included: numbering never restarts).
// A slot with no versions yet returns no row (the caller's default): a batch of new facts
// then costs one index seek per slot and no rows to decode.
UNWIND $slots AS slot
MATCH (v:Fact {tenant: $tenant, scope: slot.scope, subject: slot.subject,
               predicate: slot.predicate})
WITH slot, max(v.version) AS max_version,
     collect(CASE WHEN v.superseded_at IS NULL AND v.retracted_at IS NULL
                       AND v.status <> 'rejected' THEN v END) AS current
UNWIND CASE WHEN current = [] THEN [null] ELSE current END AS f
RETURN slot.scope AS scope, slot.subject AS subject, slot.predicate AS predicate,
       f.id AS id, f.object_key AS object_key, f.tier AS tier, f.status AS status,
       f.version AS version,
       // Epoch millis, not a datetime: decoding a datetime per row costs more than the query.
       f.expires_at.epochMillis AS expires_ms,
       // Exact microseconds: where a new version sits in valid time (services/facts/validity.py).
       f.valid_from.epochSeconds * 1000000 + f.valid_from.microsecond AS valid_from_us,
       f.valid_to.epochSeconds * 1000000 + f.valid_to.microsecond AS valid_to_us,
       coalesce(f.valid_from_stated, false) AS valid_from_stated,
       // When it was last said (versions older than told_at: when recorded).
       coalesce(f.told_at, f.recorded_at).epochSeconds * 1000000
         + coalesce(f.told_at, f.recorded_at).microsecond AS told_us,
       max_version
