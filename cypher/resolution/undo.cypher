// params: tenant, run_id
// returns: merges, proposals, orphans
// A rollback's share for entity resolution: the run's merge edges and the proposals it
// opened go (the facts it moved are restored from their snapshots, before this runs). An
// entity of those merges that no fact names once they are restored, and no other merge
// links, goes too: its facts were excised since the run (a forgotten contributor's), and
// the forget kept it only because the run had moved another's fact onto it; its name is
// theirs (as forget/merged_entities.cypher drops a merged entity no fact of its group names).
OPTIONAL MATCH (a:Entity {tenant: $tenant})-[m:MERGED_INTO {run_id: $run_id}]->(b:Entity)
WHERE a.key IS NOT NULL  // lets the (tenant, key) index seek the tenant's entities
WITH collect(DISTINCT a) + collect(DISTINCT b) AS ends, collect(m) AS edges
FOREACH (m IN edges | DELETE m)
WITH ends, size(edges) AS merges
CALL (ends) {
  UNWIND ends AS en
  WITH DISTINCT en
  WHERE NOT EXISTS { (en)<-[:ABOUT|OBJECT]-(:Fact) }
    AND NOT EXISTS { (en)-[:MERGED_INTO]-(:Entity) }
  DETACH DELETE en
  RETURN count(*) AS orphans
}
WITH merges, orphans
OPTIONAL MATCH (p:MergeProposal {tenant: $tenant, run_id: $run_id, status: 'open'})
DETACH DELETE p
RETURN merges, count(p) AS proposals, orphans
