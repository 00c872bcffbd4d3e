// Whether the entity @node is part of a consolidation merge (MERGED_INTO, either end) and no
// fact names it nor any entity of its merge group: a forget's facts gone, the names only they
// gave are left behind by the merge edges (forget.delete_facts keeps an entity that still has
// an edge). forget/merged_entities deletes such entities when a purge finishes;
// forget/_hidden_entity hides them until then.
(EXISTS { (@node)-[:MERGED_INTO]-(:Entity) }
 AND NOT EXISTS { (@node)<-[:ABOUT|OBJECT]-(:Fact) }
 AND NOT EXISTS {
   MATCH (@node)-[:MERGED_INTO*1..]-(mn_o:Entity)
   WHERE EXISTS { (mn_o)<-[:ABOUT|OBJECT]-(:Fact) }
 })
