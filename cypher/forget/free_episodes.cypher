// params: tenant, contributors, ids, facts
// returns: ids, procedures, judged
// Of these episodes (the ones a batch's facts cite), those of the contributors that no fact
// outside the batch cites ($facts, whose facts all stop citing them; a map keyed by id, since
// a list of thousands would be searched per citing fact): deleted in the same batch
// (forget/_freed). A read before the batch writes anything: after its deletes every seek and
// expand merges the transaction's state in (about 0.3 ms each at 5,000 facts).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND e.contributor IN $contributors
  AND NOT EXISTS { (e)<-[:DERIVED_FROM]-(g:Fact) WHERE $facts[g.id] IS NULL }
#include forget/_freed(e)
