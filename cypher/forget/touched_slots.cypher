// params: tenant, scopes, subject, predicate
// returns: touched
// The slots of the subject (of one predicate, or all: $predicate null) in the scopes that a
// forget in flight touched (a version citing a forgotten contributor, forget/_touched_fact):
// a slot or subject read asks when a forget runs or when it found nothing, since an ended
// claim of theirs may cut what another user told, so that no stored segment answers, until
// the purge gets there (repositories/shadow.py resolves it without them). One seek on the
// forgotten_contributor index when no forget runs.
#include forget/_hidden
WITH hidden WHERE size(hidden) > 0
MATCH (f:Fact {tenant: $tenant, subject: $subject})
WHERE f.scope IN $scopes AND ($predicate IS NULL OR f.predicate = $predicate) AND
#include forget/_touched_fact(f)
RETURN DISTINCT {scope: f.scope, subject: f.subject, predicate: f.predicate} AS touched
