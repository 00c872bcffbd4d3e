// params: tenant, scopes, subject, predicate, as_of
// returns: fact
// Every version of a (subject, predicate) that existed by as_of, oldest first, whatever its
// status: the history an analyst reads. Excised versions are gone, not hidden. An entity
// merge's copy of a version existed from the merge on (entered_at), not from when the version
// it copies was recorded.
#include forget/_hidden
MATCH (f:Fact {tenant: $tenant, subject: $subject, predicate: $predicate})
WHERE f.scope IN $scopes AND coalesce(f.entered_at, f.recorded_at) <= $as_of AND NOT
#include forget/_hidden_fact(f)
// Times as ISO text: the driver decodes a temporal value ~40x slower than Python parses text.
RETURN f {.*, embedding: null,
          recorded_at: toString(f.recorded_at), activated_at: toString(f.activated_at),
          valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
          expires_at: toString(f.expires_at), superseded_at: toString(f.superseded_at),
          successor_valid_from: toString(f.successor_valid_from),
          retracted_at: toString(f.retracted_at), flagged_at: toString(f.flagged_at),
          verified_at: toString(f.verified_at), told_at: toString(f.told_at),
          changes_at: [t IN coalesce(f.changes_at, []) | toString(t)],
          last_retrieved_at: toString(f.last_retrieved_at)} AS fact
ORDER BY f.recorded_at ASC, f.version ASC, f.id ASC
