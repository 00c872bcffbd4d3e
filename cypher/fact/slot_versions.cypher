// params: tenant, scopes, subject, predicate, as_of
// returns: fact, touched
// Every version of a (subject, predicate) that existed by as_of, whatever its status, in the
// order they entered the slot: the history an analyst reads. Excised versions are gone, not
// hidden. An entity merge's copy of a version is in the slot from the merge on (entered_at),
// not from when the version it copies was recorded.
#include forget/_hidden
MATCH (f:Fact {tenant: $tenant, subject: $subject, predicate: $predicate})
WHERE f.scope IN $scopes AND coalesce(f.entered_at, f.recorded_at) <= $as_of AND NOT
#include forget/_hidden_fact(f)
RETURN f {.*, embedding: null, text:
#include forget/_their_text(f)
          ,
#include fact/_state_times(f)
          } AS fact,
       // A forget in flight changes how it reads: the reader shows the slot as the purge
       // will leave it (repositories/shadow.py).
#include forget/_touched_view(f)
       AS touched
ORDER BY coalesce(f.entered_at, f.recorded_at) ASC, f.version ASC, f.id ASC
