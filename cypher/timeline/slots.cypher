// params: tenant, after_scope, after_subject, after_predicate, limit
// returns: scope, subject, predicate
// A tenant's slots in key order, after a given one (a resumable walk over every slot).
MATCH (f:Fact)
WHERE f.tenant = $tenant
  AND (f.scope > $after_scope
       OR (f.scope = $after_scope AND (f.subject > $after_subject
           OR (f.subject = $after_subject AND f.predicate > $after_predicate))))
WITH DISTINCT f.scope AS scope, f.subject AS subject, f.predicate AS predicate
RETURN scope, subject, predicate
ORDER BY scope, subject, predicate
LIMIT $limit
