// params: tenant
// returns: deleted
// Entities a consolidation merged (MERGED_INTO, either end) that no fact names any more, nor
// any entity of their merge group: forget.delete_facts keeps an entity that still has an edge,
// and a merge edge is one, so the names only the forgotten user's facts gave (the one merged
// away included) would stay answerable by `entity(name:)`. Run once when a purge finishes.
MATCH (en:Entity {tenant: $tenant})
WHERE EXISTS { (en)-[:MERGED_INTO]-(:Entity) }
  AND NOT EXISTS { (en)<-[:ABOUT|OBJECT]-(:Fact) }
  AND NOT EXISTS {
    MATCH (en)-[:MERGED_INTO*1..]-(o:Entity)
    WHERE EXISTS { (o)<-[:ABOUT|OBJECT]-(:Fact) }
  }
DETACH DELETE en
RETURN count(*) AS deleted
