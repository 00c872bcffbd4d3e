// params: tenant, premises, now
// returns: id, premise
// A conclusion whose premise was superseded or retracted must not be served as if nothing
// changed: flag it needs-verification with the reason. Conclusions drawn from that conclusion
// lose their grounds too, so doubt follows DEPENDS_ON all the way down (fact/_conclusions).
// The caller holds the locks of their scopes (repositories/facts.py).
UNWIND $premises AS p
MATCH (premise:Fact {id: p.id})
#include fact/_conclusions(premise)
// One flag per conclusion, by its nearest changed premise.
WITH d, p, length(path) AS hops
ORDER BY hops
WITH d, head(collect({p: p, hops: hops})) AS nearest
WITH d, nearest.p AS p,
     nearest.p.reason + CASE WHEN nearest.hops > 1
                             THEN ' (through ' + toString(nearest.hops - 1)
                                  + ' intermediate conclusion(s))'
                             ELSE '' END AS reason
SET d.needs_verification = true, d.verification_reason = reason, d.flagged_at = $now,
    // Each flag and verification is in the change log: reads as of a past moment fold it.
    d.changes_at = coalesce(d.changes_at, []) + $now,
    d.changes = coalesce(d.changes, []) + 'flagged'
RETURN d.id AS id, p.id AS premise
