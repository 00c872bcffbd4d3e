// params: tenant, ids, promote_sessions, promote, now
// returns: id, before, after, status_before, status, sessions, closed
// Confidence is derived from evidence: per session the strongest weight, noisy-OR across
// sessions, capped by the fact's tier. Candidates reaching the corroboration threshold
// (distinct sessions) are promoted to active here, in the same transaction as the evidence,
// unless a higher tier holds their slot, and end the version they were written to supersede
// (`closed`: fact/_close_linked).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
// A session is (user, session id): clients number sessions per user, so two users' "s1"
// are two independent pieces of evidence.
WITH f, CASE WHEN e IS NULL THEN null ELSE [e.user_id, e.session_id] END AS session,
     max(d.weight) AS w
WITH f, [x IN collect(CASE WHEN session IS NULL THEN null ELSE w END) WHERE x IS NOT NULL] AS ws
WITH f, ws, f.confidence AS before, f.status AS status_before,
     // Rounded as domain.noisy_or rounds (a read as of before a later corroboration computes
     // the confidence then in Python: 0.9099999999999999 here was 0.91 there).
     round(1.0 - reduce(miss = 1.0, w IN ws | miss * (1.0 - w)), 6) AS raw
WITH f, ws, before, status_before, raw,
     // Never over a higher tier's served version of another value (it waits for review).
     // The slot is looked at only for a candidate at the threshold (CASE evaluates lazily,
     // AND need not): every corroborating write comes through here.
     CASE WHEN $promote AND f.status = 'candidate' AND size(ws) >= $promote_sessions
          THEN NOT
#include fact/_outranked(f)
          ELSE false END AS promoted
SET f.confidence = CASE WHEN raw > f.tier_cap THEN f.tier_cap ELSE raw END,
    f.status = CASE WHEN promoted THEN 'active' ELSE f.status END,
    f.activated_at = CASE WHEN promoted THEN $now ELSE f.activated_at END,
    f.changes_at = CASE WHEN promoted THEN coalesce(f.changes_at, []) + $now
                        ELSE f.changes_at END,
    f.changes = CASE WHEN promoted THEN coalesce(f.changes, []) + 'activated'
                     ELSE f.changes END
WITH f, ws, before, status_before, promoted
OPTIONAL CALL (f, promoted) {
  WITH f WHERE promoted
#include fact/_close_linked(f)
}
RETURN f.id AS id, before, f.confidence AS after, status_before, f.status AS status,
       size(ws) AS sessions, closed
