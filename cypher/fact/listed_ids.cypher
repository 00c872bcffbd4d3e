// params: tenant, ids, as_of, include_expired, needs_verification
// returns: fact
// Versions a listing answers with that the stored timeline does not name yet: those a slot
// touched by a forget in flight resolves to (repositories/shadow.py), under the listing's
// own filters (fact/_listed_where) and in its own form (fact/_listed_fact). One a forgotten
// contributor alone supports is never among them.
#include forget/_hidden
UNWIND $ids AS id
MATCH (f:Fact {id: id})
// (A version a purge batch deleted while this read comes back without its properties.)
WHERE f.tenant = $tenant AND f.recorded_at IS NOT NULL AND NOT
#include forget/_hidden_fact(f)
  AND
#include fact/_listed_where
RETURN
#include fact/_listed_fact(f)
       AS fact
