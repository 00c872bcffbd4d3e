// params: tenant, rows, now
// returns: id
// Flags the given versions needs-verification with their reasons (a conclusion drawn from a
// premise already in doubt is born flagged); logged like every flag, for as-of reads.
UNWIND $rows AS row
MATCH (d:Fact {id: row.id})
WHERE d.tenant = $tenant
SET d.needs_verification = true, d.verification_reason = row.reason, d.flagged_at = $now,
    d.flag_log_at = coalesce(d.flag_log_at, []) + [$now],
    d.flag_log = coalesce(d.flag_log, []) + [true]
RETURN d.id AS id
