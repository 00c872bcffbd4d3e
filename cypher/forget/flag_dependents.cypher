// params: tenant, ids, excised, now, reason
// returns: id, current
// Conclusions drawn from excised premises, down the whole chain (as fact.flag_dependents):
// current ones are flagged needs-verification; any older reason text (which may quote the
// premise) is replaced by a content-free one.
// $excised is the same ids as a map: a lookup keeps the cost linear.
UNWIND $ids AS pid
MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(:Fact {id: pid})
WHERE d.tenant = $tenant AND $excised[d.id] IS NULL
WITH DISTINCT d
WITH d, d.superseded_at IS NULL AND d.retracted_at IS NULL AS current
SET d.needs_verification = CASE WHEN current THEN true ELSE d.needs_verification END,
    d.verification_reason = CASE WHEN current OR d.verification_reason IS NOT NULL
                                 THEN $reason ELSE null END,
    d.flagged_at = CASE WHEN current THEN $now ELSE d.flagged_at END,
    d.changes_at = CASE WHEN current THEN coalesce(d.changes_at, []) + $now
                        ELSE d.changes_at END,
    d.changes = CASE WHEN current THEN coalesce(d.changes, []) + 'flagged'
                     ELSE d.changes END
RETURN d.id AS id, current
