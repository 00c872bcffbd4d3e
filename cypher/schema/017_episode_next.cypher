// Consecutive episodes of a session are linked (:Episode)-[:NEXT]->(:Episode) when recorded
// (episode.link_sessions); this backfills the chains of sessions recorded before (a session
// already linked is left as it is), in the same order: started_at, then recorded_at, then id (their batch position was not kept). The index
// makes relinking a session on each write a seek, not a scan of the tenant's episodes.
CREATE INDEX episode_session IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.scope, e.session_id);
MATCH (e:Episode) WHERE e.session_id IS NOT NULL WITH e ORDER BY e.started_at, e.recorded_at, e.id WITH e.tenant AS tenant, e.scope AS scope, e.session_id AS session, collect(e) AS chain WHERE size(chain) > 1 AND none(x IN chain WHERE EXISTS { (x)-[:NEXT]-() }) UNWIND range(0, size(chain) - 2) AS i WITH chain[i] AS a, chain[i + 1] AS b CREATE (a)-[:NEXT]->(b);
