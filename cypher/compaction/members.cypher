// params: tenant, ids
// returns: id, scope, ft_scope, user_id, started_at, ended_at, summary, outcome, topics, key_entities, confidence, embedding
// What a digest is made from: each member episode still uncompacted (re-checked in the
// digest's batch).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND e.compacted_into IS NULL AND NOT coalesce(e.digest, false)
RETURN e.id AS id, e.scope AS scope, e.ft_scope AS ft_scope, e.user_id AS user_id,
       e.started_at AS started_at, e.ended_at AS ended_at, e.summary AS summary,
       e.outcome AS outcome, e.topics AS topics, e.key_entities AS key_entities,
       e.confidence AS confidence, e.embedding AS embedding
ORDER BY e.started_at, e.id
