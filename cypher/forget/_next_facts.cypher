// The facts a purge batch takes next (forget/batch_facts, and forget/batch_scopes for their
// locks, so both take the same ones): versions citing the contributors' episodes. In the ends
// phase ($ends, a job's first batches) only versions with an end: an ended claim of theirs may
// cut another user's value so that no stored segment answers the slot, which a listing by
// scope or predicate finds only by looking for such versions (forget/touched_ends); purged
// first, that look ends after the first batches.
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
MATCH (u)<-[:CONTRIBUTED_BY]-(:Episode)<-[:DERIVED_FROM]-(f:Fact)
WHERE NOT $ends OR f.valid_to IS NOT NULL
