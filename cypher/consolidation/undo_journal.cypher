// params: tenant, run_id, batch
// returns: dropped, relabelled, recreated
// A rollback batch's timeline share when nothing else wrote the run's scopes since: the
// exact inverse of the batch's journaled writes (consolidation.journal): the segments it
// created go, those it ended are open again, those it relabelled go back to their slot,
// those it deleted come back with their id and times. No slot is recomputed; the journal is
// spent.
CYPHER 25
MATCH (j:ConsolidationJournal {tenant: $tenant, run_id: $run_id, batch: $batch})
CALL (j) {
  UNWIND j.created_ids AS id
  MATCH (s:Segment {id: id})
  WHERE s.tenant = $tenant
  DETACH DELETE s
  RETURN count(*) AS dropped
}
CALL (j) {
  UNWIND coalesce(j.closed_ids, []) AS id
  MATCH (s:Segment {id: id})
  WHERE s.tenant = $tenant
  SET s.sys_to = null
  RETURN count(*) AS reopened
}
CALL (j) {
  UNWIND range(0, size(j.moved_ids) - 1) AS i
  MATCH (s:Segment {id: j.moved_ids[i]})
  WHERE s.tenant = $tenant
  // Only what differs (a merge changes the subject): a property set to the value it has
  // still updates every index on it, and scope is in all four of Segment's.
  FOREACH (_ IN CASE WHEN s.scope <> j.moved_scopes[i] THEN [1] ELSE [] END |
    SET s.scope = j.moved_scopes[i])
  FOREACH (_ IN CASE WHEN s.subject <> j.moved_subjects[i] THEN [1] ELSE [] END |
    SET s.subject = j.moved_subjects[i])
  FOREACH (_ IN CASE WHEN s.predicate <> j.moved_predicates[i] THEN [1] ELSE [] END |
    SET s.predicate = j.moved_predicates[i])
  RETURN count(*) AS relabelled
}
CALL (j) {
  UNWIND range(0, size(j.deleted_ids) - 1) AS i
  MATCH (f:Fact {id: j.deleted_facts[i]})
  WHERE f.tenant = $tenant
  CREATE (s:Segment {id: j.deleted_ids[i], tenant: $tenant, scope: j.deleted_scopes[i],
                     subject: j.deleted_subjects[i], predicate: j.deleted_predicates[i],
                     fact_id: f.id, recorded_at: f.recorded_at, view: j.deleted_views[i]})
  SET s.sys_from = datetime(j.deleted_sys_from[i]),
      s.sys_to = CASE j.deleted_sys_to[i] WHEN '' THEN null ELSE datetime(j.deleted_sys_to[i]) END,
      s.valid_from = CASE j.deleted_valid_from[i] WHEN '' THEN null
                     ELSE datetime(j.deleted_valid_from[i]) END,
      s.valid_to = CASE j.deleted_valid_to[i] WHEN '' THEN null
                   ELSE datetime(j.deleted_valid_to[i]) END
  CREATE (s)-[:WINS]->(f)
  RETURN count(*) AS recreated
}
DELETE j
RETURN dropped, relabelled, recreated
