// params: tenant, merges, run_id, now
// returns: id, gone, subject, subject_name, subject_merged_from
// A batch of auto-merges, each of entity `gone` into `keep` within one scope: that scope's
// facts about it move to the survivor's slots (subject, ABOUT edge) and keep where they came
// from; each merge is an edge carrying the run and the score (removed again by a rollback).
// The caller never lets an entity absorbed here be a survivor in the same run.
UNWIND $merges AS m
MATCH (src:Entity {tenant: $tenant, key: m.gone}), (dst:Entity {tenant: $tenant, key: m.keep})
MERGE (src)-[e:MERGED_INTO {run_id: $run_id, scope: m.scope}]->(dst)
SET e.score = m.score, e.at = $now
WITH src, dst, m
MATCH (f:Fact {tenant: $tenant, scope: m.scope, subject: m.gone})-[a:ABOUT]->(src)
DELETE a
CREATE (f)-[:ABOUT]->(dst)
SET f.subject_merged_from = coalesce(f.subject_merged_from, f.subject),
    f.subject = dst.key, f.subject_name = coalesce(dst.name, dst.key)
// Exactly what changed on each fact (the caller's diff needs no second read of it).
RETURN f.id AS id, m.gone AS gone, f.subject AS subject, f.subject_name AS subject_name,
       f.subject_merged_from AS subject_merged_from
