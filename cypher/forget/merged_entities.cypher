// params: tenant
// returns: deleted
// Entities a consolidation merged that no fact names any more, nor any entity of their merge
// group (entity/_merged_nameless): the names only the forgotten user's facts gave (the one
// merged away included) would stay answerable by `entity(name:)`. Run once when a purge
// finishes.
MATCH (en:Entity {tenant: $tenant})
WHERE en.key IS NOT NULL AND  // seeks the (tenant, key) index
#include entity/_merged_nameless(en)
DETACH DELETE en
RETURN count(*) AS deleted
