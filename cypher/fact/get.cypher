// params: tenant, ids
// returns: fact, forgotten, touched
// forgotten: only forgotten contributors support it (forget/_hidden): reads drop it, writes
// refuse to build on it.
#include forget/_hidden
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
RETURN f {.*, embedding: null, text:
#include forget/_their_text(f)
          ,
#include fact/_state_times(f)
          } AS fact,
#include forget/_hidden_fact(f)
       AS forgotten,
       // A forget in flight changes how it reads (repositories/shadow.py).
       CASE WHEN size(hidden) = 0 THEN null
            WHEN
#include forget/_touched_view(f)
            THEN {scope: f.scope, subject: f.subject, predicate: f.predicate} END AS touched
