// params: tenant, ids
// returns: id
// As if the excised version that flagged them had never been written: no flag, no reason, and
// the flag it raised (the last one logged) leaves the log too.
UNWIND $ids AS id
MATCH (d:Fact {id: id})
WHERE d.tenant = $tenant
SET d.needs_verification = false, d.verification_reason = null, d.flagged_at = null,
    d.flag_log_at = CASE WHEN size(coalesce(d.flag_log_at, [])) > 0
                         THEN d.flag_log_at[0..-1] ELSE d.flag_log_at END,
    d.flag_log = CASE WHEN size(coalesce(d.flag_log, [])) > 0
                      THEN d.flag_log[0..-1] ELSE d.flag_log END
RETURN d.id AS id
