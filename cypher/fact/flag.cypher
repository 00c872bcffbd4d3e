// params: tenant, rows, now
// returns: id
// Flags the given versions needs-verification with their reasons (a conclusion drawn from a
// premise already in doubt is born flagged); logged like every flag, for as-of reads. A row's
// `rival` (may be absent): the served version of its slot a reviewer's approval of it ends
// (consolidation's merge disagreements; review/approve).
UNWIND $rows AS row
MATCH (d:Fact {id: row.id})
WHERE d.tenant = $tenant
SET d.needs_verification = true, d.verification_reason = row.reason, d.flagged_at = $now,
    d.verification_rival = row.rival,
    d.changes_at = coalesce(d.changes_at, []) + $now,
    d.changes = coalesce(d.changes, []) + 'flagged'
RETURN d.id AS id
