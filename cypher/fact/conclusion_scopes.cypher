// params: tenant, ids
// returns: scope
// The scopes of the conclusions drawn from these premises (fact/_conclusions): a change that
// flags them writes there, so it takes those scopes' locks first (repositories/facts.py).
UNWIND $ids AS id
MATCH (premise:Fact {id: id})
#include fact/_conclusions(premise)
RETURN DISTINCT d.scope AS scope
