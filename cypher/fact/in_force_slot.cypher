// params: tenant, scopes, subject, predicate, statuses, include_candidates, as_of, valid_at, include_expired, needs_verification, after_recorded, after_id, limit
// returns: fact
// One (subject, predicate) slot: seeks the slot index.
// In force at (as_of, valid_at) -- the same rule in every bitemporal read:
//  * believed at as_of: recorded by then, not retracted by then, active by then (a candidate
//    only when asked for; activated_at is when it became active), not past its TTL;
//  * valid at valid_at: valid_from <= valid_at < valid_to (half-open, open ends are null);
//  * one claim wins its slot among those: a version whose start nobody stated (it defaulted
//    to when it was said) yields to any version said no earlier (told_at: the latest start of
//    its cited episodes; at the same moment, the one recorded last); otherwise the one whose
//    validity started last wins (on the same start, the one recorded last). So history told
//    out of order stays a timeline, "lives in Berlin since 2024" replaces "lives in Paris"
//    heard today, and sessions ingested out of order still end on the latest one told
//    (services/validity.py: what a write supersedes). Across dated and undated versions only
//    the best of each kind compete, so exactly one version answers.
//  * a later version of the same object cuts f from its start even after it ended ("had
//    Rex until March"); another object wins only while it holds (an interruption). A
//    later-said claim overrides an undated one only if it still held when that was said.
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.scope IN $scopes AND f.subject = $subject
  AND f.predicate = $predicate
  AND f.status IN $statuses
  AND ($include_candidates OR f.activated_at <= $as_of)
  AND f.recorded_at <= $as_of
  AND (f.retracted_at IS NULL OR f.retracted_at > $as_of)
  // Another version of the slot believed at as_of and valid at valid_at beats this one (the
  // rule in the header); for a many-valued predicate only versions of the same object compete.
  // Each branch seeks its own index: a many-valued slot can hold hundreds of objects.
  AND (coalesce(f.cardinality, 'one') = 'many' OR NOT EXISTS {
        MATCH (g:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                       predicate: f.predicate})
        USING INDEX g:Fact(tenant, scope, subject, predicate)
        WHERE g.id <> f.id
          AND g.recorded_at <= $as_of
          AND g.status <> 'rejected'
          AND ($include_candidates OR g.activated_at <= $as_of)
          AND (g.retracted_at IS NULL OR g.retracted_at > $as_of)
          AND (g.valid_from IS NULL OR g.valid_from <= $valid_at)
          // A version of the same object cuts f from its start even once it has ended
          // ("had Rex until March" ends "has Rex"); another object only while it holds
          // ("in Berlin for 2024" interrupts "in Paris since 2018", it does not end it).
          AND (g.valid_to IS NULL OR $valid_at < g.valid_to OR g.object_key = f.object_key)
          AND CASE
            // f's start nobody stated (it is when f was said): any version said no earlier
            // beats it (told_at; said at the same moment: the one recorded last).
            WHEN NOT coalesce(f.valid_from_stated, false)
                 AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at))
                 AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                      OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                          AND (g.recorded_at > f.recorded_at
                               OR (g.recorded_at = f.recorded_at AND g.version > f.version))))
              THEN true
            // Likewise an undated g never beats a version said no earlier than it.
            WHEN NOT coalesce(g.valid_from_stated, false)
                 AND (f.valid_to IS NULL OR f.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                 AND (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                      OR (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                          AND (f.recorded_at > g.recorded_at
                               OR (f.recorded_at = g.recorded_at AND f.version > g.version))))
              THEN false
            // Otherwise the later start wins; on the same start, the later record.
            ELSE coalesce(g.valid_from, g.recorded_at) > coalesce(f.valid_from, f.recorded_at)
                 OR (coalesce(g.valid_from, g.recorded_at) = coalesce(f.valid_from, f.recorded_at)
                     AND (g.recorded_at > f.recorded_at
                          OR (g.recorded_at = f.recorded_at AND g.version > f.version)))
          END
          // Across dated and undated versions only each kind's best competes: compared
          // pairwise, mixed claims can beat each other in a circle and leave no answer.
          AND (coalesce(g.valid_from_stated, false) = coalesce(f.valid_from_stated, false)
               // an ended version of f's object cuts f whatever its kind
               OR g.valid_to <= $valid_at
               OR NOT EXISTS {
                 MATCH (h:Fact {tenant: g.tenant, scope: g.scope, subject: g.subject,
                                predicate: g.predicate})
                 USING INDEX h:Fact(tenant, scope, subject, predicate)
                 WHERE h.id <> g.id
                   AND coalesce(h.valid_from_stated, false) = coalesce(g.valid_from_stated, false)
                   AND h.recorded_at <= $as_of
                   AND h.status <> 'rejected'
                   AND ($include_candidates OR h.activated_at <= $as_of)
                   AND (h.retracted_at IS NULL OR h.retracted_at > $as_of)
                   AND (h.valid_from IS NULL OR h.valid_from <= $valid_at)
                   AND (h.valid_to IS NULL OR $valid_at < h.valid_to)
                   AND CASE
                     WHEN NOT coalesce(g.valid_from_stated, false)
                          AND (h.valid_to IS NULL OR h.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                          AND (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                               OR (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                   AND (h.recorded_at > g.recorded_at
                                        OR (h.recorded_at = g.recorded_at AND h.version > g.version))))
                       THEN true
                     WHEN NOT coalesce(h.valid_from_stated, false)
                          AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at))
                          AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                               OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                   AND (g.recorded_at > h.recorded_at
                                        OR (g.recorded_at = h.recorded_at AND g.version > h.version))))
                       THEN false
                     ELSE coalesce(h.valid_from, h.recorded_at) > coalesce(g.valid_from, g.recorded_at)
                          OR (coalesce(h.valid_from, h.recorded_at) = coalesce(g.valid_from, g.recorded_at)
                              AND (h.recorded_at > g.recorded_at
                                   OR (h.recorded_at = g.recorded_at AND h.version > g.version)))
                   END
               })
      })
  AND (coalesce(f.cardinality, 'one') <> 'many' OR NOT EXISTS {
        MATCH (g:Fact {tenant: f.tenant, scope: f.scope, subject: f.subject,
                       predicate: f.predicate, object_key: f.object_key})
        USING INDEX g:Fact(tenant, scope, subject, predicate, object_key)
        WHERE g.id <> f.id
          AND g.recorded_at <= $as_of
          AND g.status <> 'rejected'
          AND ($include_candidates OR g.activated_at <= $as_of)
          AND (g.retracted_at IS NULL OR g.retracted_at > $as_of)
          AND (g.valid_from IS NULL OR g.valid_from <= $valid_at)
          // A version of the same object cuts f from its start even once it has ended
          // ("had Rex until March" ends "has Rex"); another object only while it holds
          // ("in Berlin for 2024" interrupts "in Paris since 2018", it does not end it).
          AND (g.valid_to IS NULL OR $valid_at < g.valid_to OR g.object_key = f.object_key)
          AND CASE
            // f's start nobody stated (it is when f was said): any version said no earlier
            // beats it (told_at; said at the same moment: the one recorded last).
            WHEN NOT coalesce(f.valid_from_stated, false)
                 AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at))
                 AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                      OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at)
                          AND (g.recorded_at > f.recorded_at
                               OR (g.recorded_at = f.recorded_at AND g.version > f.version))))
              THEN true
            // Likewise an undated g never beats a version said no earlier than it.
            WHEN NOT coalesce(g.valid_from_stated, false)
                 AND (f.valid_to IS NULL OR f.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                 AND (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                      OR (coalesce(CASE WHEN f.told_moved_at > $as_of THEN f.told_prev ELSE f.told_at END, f.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                          AND (f.recorded_at > g.recorded_at
                               OR (f.recorded_at = g.recorded_at AND f.version > g.version))))
              THEN false
            // Otherwise the later start wins; on the same start, the later record.
            ELSE coalesce(g.valid_from, g.recorded_at) > coalesce(f.valid_from, f.recorded_at)
                 OR (coalesce(g.valid_from, g.recorded_at) = coalesce(f.valid_from, f.recorded_at)
                     AND (g.recorded_at > f.recorded_at
                          OR (g.recorded_at = f.recorded_at AND g.version > f.version)))
          END
          // Across dated and undated versions only each kind's best competes: compared
          // pairwise, mixed claims can beat each other in a circle and leave no answer.
          AND (coalesce(g.valid_from_stated, false) = coalesce(f.valid_from_stated, false)
               // an ended version of f's object cuts f whatever its kind
               OR g.valid_to <= $valid_at
               OR NOT EXISTS {
                 MATCH (h:Fact {tenant: g.tenant, scope: g.scope, subject: g.subject,
                                predicate: g.predicate, object_key: g.object_key})
                 USING INDEX h:Fact(tenant, scope, subject, predicate, object_key)
                 WHERE h.id <> g.id
                   AND coalesce(h.valid_from_stated, false) = coalesce(g.valid_from_stated, false)
                   AND h.recorded_at <= $as_of
                   AND h.status <> 'rejected'
                   AND ($include_candidates OR h.activated_at <= $as_of)
                   AND (h.retracted_at IS NULL OR h.retracted_at > $as_of)
                   AND (h.valid_from IS NULL OR h.valid_from <= $valid_at)
                   AND (h.valid_to IS NULL OR $valid_at < h.valid_to)
                   AND CASE
                     WHEN NOT coalesce(g.valid_from_stated, false)
                          AND (h.valid_to IS NULL OR h.valid_to > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at))
                          AND (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) > coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                               OR (coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at) = coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at)
                                   AND (h.recorded_at > g.recorded_at
                                        OR (h.recorded_at = g.recorded_at AND h.version > g.version))))
                       THEN true
                     WHEN NOT coalesce(h.valid_from_stated, false)
                          AND (g.valid_to IS NULL OR g.valid_to > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at))
                          AND (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) > coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                               OR (coalesce(CASE WHEN g.told_moved_at > $as_of THEN g.told_prev ELSE g.told_at END, g.recorded_at) = coalesce(CASE WHEN h.told_moved_at > $as_of THEN h.told_prev ELSE h.told_at END, h.recorded_at)
                                   AND (g.recorded_at > h.recorded_at
                                        OR (g.recorded_at = h.recorded_at AND g.version > h.version))))
                       THEN false
                     ELSE coalesce(h.valid_from, h.recorded_at) > coalesce(g.valid_from, g.recorded_at)
                          OR (coalesce(h.valid_from, h.recorded_at) = coalesce(g.valid_from, g.recorded_at)
                              AND (h.recorded_at > g.recorded_at
                                   OR (h.recorded_at = g.recorded_at AND h.version > g.version)))
                   END
               })
      })
  AND (f.valid_from IS NULL OR f.valid_from <= $valid_at)
  AND (f.valid_to IS NULL OR $valid_at < f.valid_to)
  AND ($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
  // The flag as it stood at as_of (services/belief.py shows it so): flagged later means not
  // yet flagged then; verified later means still awaiting verification then.
  AND ($needs_verification IS NULL OR $needs_verification = CASE
         WHEN f.flag_log_at IS NOT NULL
           THEN coalesce(last([i IN range(0, size(f.flag_log_at) - 1)
                               WHERE f.flag_log_at[i] <= $as_of | f.flag_log[i]]), false)
         WHEN f.flagged_at > $as_of THEN false
         WHEN f.verified_at > $as_of AND f.flagged_at IS NOT NULL THEN true
         ELSE coalesce(f.needs_verification, false) END)
  AND ($after_recorded IS NULL OR f.recorded_at < $after_recorded
       OR (f.recorded_at = $after_recorded AND f.id < $after_id))
// Times as ISO text: the driver decodes a temporal value ~40x slower than Python parses text.
RETURN f {.*, embedding: null,
          recorded_at: toString(f.recorded_at), activated_at: toString(f.activated_at),
          valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
          expires_at: toString(f.expires_at), superseded_at: toString(f.superseded_at),
          successor_valid_from: toString(f.successor_valid_from),
          retracted_at: toString(f.retracted_at), flagged_at: toString(f.flagged_at),
          verified_at: toString(f.verified_at), told_at: toString(f.told_at),
          flag_log_at: [t IN coalesce(f.flag_log_at, []) | toString(t)],
          last_retrieved_at: toString(f.last_retrieved_at)} AS fact
ORDER BY f.recorded_at DESC, f.id DESC
LIMIT $limit
