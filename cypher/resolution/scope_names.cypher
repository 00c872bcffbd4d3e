// params: tenant, scope
// returns: key, name, facts
// The entities facts of one scope are about (versions still believed, as resolution.project
// takes them), with how many: the names entity resolution also compares by spelling alone,
// since a name vector can rate one name spelled two ways far apart ("IBM" / "I.B.M." 0.34).
MATCH (e:Entity {tenant: $tenant})
WHERE e.key IS NOT NULL  // seeks the (tenant, key) index, not every tenant's entities
  AND EXISTS { MATCH (f:Fact {tenant: $tenant, scope: $scope})-[:ABOUT]->(e)
               WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL }
RETURN e.key AS key, coalesce(e.name, e.key) AS name,
       COUNT { (f:Fact)-[:ABOUT]->(e) WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL }
         AS facts
