// params: tenant, ids
// returns: id
// Of these episodes, those of a contributor being forgotten (forget/_hidden: from the forget's
// commit until its purge deletes them): a write that cites one is refused
// (CONTRIBUTOR_FORGOTTEN), as a fact write refuses its citations (fact/write_state).
#include forget/_hidden
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND size(hidden) > 0 AND
#include forget/_hidden_episode(e)
RETURN e.id AS id
