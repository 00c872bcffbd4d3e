// params: tenant, episode_ids
// returns: id, tier, only, chained
// Every fact version citing those episodes; `only` when all of its evidence is among them
// (it is then excised), `chained` when it sits in a supersession chain (needs relinking).
UNWIND $episode_ids AS eid
MATCH (e:Episode {id: eid})<-[:DERIVED_FROM]-(f:Fact)
WHERE e.tenant = $tenant AND f.tenant = $tenant
WITH DISTINCT f
RETURN f.id AS id, f.tier AS tier,
       NOT EXISTS {
         MATCH (f)-[:DERIVED_FROM]->(o:Episode) WHERE NOT o.id IN $episode_ids
       } AS only,
       EXISTS { (f)-[:SUPERSEDES]-(:Fact) } AS chained
