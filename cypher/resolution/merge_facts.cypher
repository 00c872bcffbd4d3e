// params: tenant, scope, from_key, to_key, run_id, score, now
// returns: id, old_subject
// Auto-merge of entity `from` into `to` within one scope: the facts of that scope about it
// move to the survivor's slots (subject, ABOUT edge) and keep where they came from; the
// merge itself is an edge carrying the run and the score (removed again by a rollback).
MATCH (src:Entity {tenant: $tenant, key: $from_key}), (dst:Entity {tenant: $tenant, key: $to_key})
MERGE (src)-[m:MERGED_INTO {run_id: $run_id, scope: $scope}]->(dst)
SET m.score = $score, m.at = $now
WITH src, dst
MATCH (f:Fact {tenant: $tenant, scope: $scope, subject: $from_key})-[a:ABOUT]->(src)
DELETE a
CREATE (f)-[:ABOUT]->(dst)
SET f.subject_merged_from = coalesce(f.subject_merged_from, f.subject),
    f.subject = dst.key, f.subject_name = coalesce(dst.name, dst.key)
RETURN f.id AS id, $from_key AS old_subject
