// params: tenant, ids
// returns: fact, forgotten
// forgotten: only forgotten contributors support it (forget/_hidden): reads drop it, writes
// refuse to build on it.
#include forget/_hidden
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
// Times as ISO text: the driver decodes a temporal value ~40x slower than Python parses text.
RETURN f {.*, embedding: null,
          recorded_at: toString(f.recorded_at), activated_at: toString(f.activated_at),
          valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
          expires_at: toString(f.expires_at), superseded_at: toString(f.superseded_at),
          successor_valid_from: toString(f.successor_valid_from),
          retracted_at: toString(f.retracted_at), flagged_at: toString(f.flagged_at),
          verified_at: toString(f.verified_at), told_at: toString(f.told_at),
          changes_at: [t IN coalesce(f.changes_at, []) | toString(t)],
          last_retrieved_at: toString(f.last_retrieved_at)} AS fact,
#include forget/_hidden_fact(f)
       AS forgotten
