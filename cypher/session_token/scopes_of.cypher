// params: tenant, ids
// returns: id, scope
// The scope of each memory a session token names by id (a fact, episode, procedure or memo):
// whatever its status, since a token may not touch another scope's memory in any state.
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Fact {id: id}) WHERE n.tenant = $tenant RETURN n.scope AS scope
  UNION
  MATCH (n:Episode {id: id}) WHERE n.tenant = $tenant RETURN n.scope AS scope
  UNION
  MATCH (n:Procedure {id: id}) WHERE n.tenant = $tenant RETURN n.scope AS scope
  UNION
  MATCH (n:Memo {id: id}) WHERE n.tenant = $tenant RETURN n.scope AS scope
}
RETURN id, scope
