// params: tenant, ids, now
// returns: id, reason
// A flagged version confirmed again by a new assertion (fresh evidence from the writer) is
// verified: the flag clears and the reason it carried is returned for the audit event.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant AND f.needs_verification = true
WITH f, f.verification_reason AS reason
#include fact/_verify(f)
RETURN f.id AS id, reason
