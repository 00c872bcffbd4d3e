// params: tenant, scopes, subject, predicate, as_of
// returns: fact
// Every version of a (subject, predicate) that existed by as_of, oldest first, whatever its
// status: the history an analyst reads. Excised versions are gone, not hidden.
MATCH (f:Fact {tenant: $tenant, subject: $subject, predicate: $predicate})
WHERE f.scope IN $scopes AND f.recorded_at <= $as_of
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at ASC, f.version ASC, f.id ASC
