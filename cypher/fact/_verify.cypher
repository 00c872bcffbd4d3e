// Clears the verification flag of @node as verified at $now, appended to its lifecycle log
// like every change ('verified': graph_memory/temporal/lifecycle.py), so as-of reads keep the
// flag as it stood. Fresh evidence (fact/reverify) and a reviewer (review/approve) both end a
// flag this way. The reason it cleared stays as verified_reason: what was settled is not
// raised again (consolidation/contradictions).
SET @node.verified_reason = @node.verification_reason
SET @node.needs_verification = false, @node.verification_reason = null,
    @node.verification_rival = null,
    @node.verified_at = $now,
    @node.changes_at = coalesce(@node.changes_at, []) + $now,
    @node.changes = coalesce(@node.changes, []) + 'verified'
