// params: tenant, contributors, ids, facts
// returns: ids, procedures, judged
// Of these episodes (the ones a batch's facts cite), those of the contributors that no fact
// outside the batch ($facts, a map keyed by id: a lookup keeps the check linear, where a
// list of thousands is searched per citing fact; they all stop citing them): deleted in the
// same batch.
// With the procedures they evidence, and which of them reported outcomes (forget.drop_outcomes
// runs for those alone). A read before the batch writes anything: after its deletes every
// seek and expand merges the transaction's state in (about 0.3 ms each at 5,000 facts).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND e.contributor IN $contributors
  AND NOT EXISTS { (e)<-[:DERIVED_FROM]-(g:Fact) WHERE $facts[g.id] IS NULL }
CALL (e) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(e)
  WHERE p.tenant = $tenant
  RETURN collect(p.id) AS procedures
}
RETURN collect(e.id) AS ids, collect(procedures) AS procedures,
       collect(CASE WHEN EXISTS { (e)-[:LED_TO]->() } THEN e.id END) AS judged
