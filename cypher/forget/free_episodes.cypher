// params: tenant, contributors, ids
// returns: ids, procedures
// Of these episodes (the ones a batch of facts just let go of), those of the contributors that
// no fact cites any more: deleted in the same batch. With the procedures they evidence.
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND e.contributor IN $contributors
  AND NOT EXISTS { (e)<-[:DERIVED_FROM]-(:Fact) }
CALL (e) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(e)
  WHERE p.tenant = $tenant
  RETURN collect(p.id) AS procedures
}
RETURN collect(e.id) AS ids, collect(procedures) AS procedures
