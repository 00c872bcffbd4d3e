// params: tenant, ids
// returns: id
// As if the excised version that flagged them had never been written: no flag, no reason, and
// the flag it raised (the last one in the change log) leaves the log too.
UNWIND $ids AS id
MATCH (d:Fact {id: id})
WHERE d.tenant = $tenant
WITH d, last([i IN range(0, size(coalesce(d.changes, [])) - 1)
              WHERE d.changes[i] = 'flagged']) AS raised
WITH d, [i IN range(0, size(coalesce(d.changes, [])) - 1) WHERE i <> coalesce(raised, -1)] AS keep
SET d.needs_verification = false, d.verification_reason = null, d.flagged_at = null,
    d.changes_at = [i IN keep | d.changes_at[i]], d.changes = [i IN keep | d.changes[i]]
RETURN d.id AS id
