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
  // The lists are read from the node once: `j.moved_ids[i]` per row decoded the whole
  // stored array again for every segment (quadratic in the batch).
  WITH j.moved_ids AS ids, j.moved_scopes AS scopes, j.moved_subjects AS subjects,
       j.moved_predicates AS predicates
  UNWIND range(0, size(ids) - 1) AS i
  MATCH (s:Segment {id: ids[i]})
  WHERE s.tenant = $tenant
  // Only what differs (a merge changes the subject): a property set to the value it has
  // still updates every index on it, and scope is in all four of Segment's.
  FOREACH (_ IN CASE WHEN s.scope <> scopes[i] THEN [1] ELSE [] END |
    SET s.scope = scopes[i])
  FOREACH (_ IN CASE WHEN s.subject <> subjects[i] THEN [1] ELSE [] END |
    SET s.subject = subjects[i])
  FOREACH (_ IN CASE WHEN s.predicate <> predicates[i] THEN [1] ELSE [] END |
    SET s.predicate = predicates[i])
  RETURN count(*) AS relabelled
}
CALL (j) {
  WITH j.deleted_ids AS ids, j.deleted_facts AS facts, j.deleted_scopes AS scopes,
       j.deleted_subjects AS subjects, j.deleted_predicates AS predicates,
       j.deleted_views AS views, j.deleted_sys_from AS sys_from, j.deleted_sys_to AS sys_to,
       j.deleted_valid_from AS valid_from, j.deleted_valid_to AS valid_to
  UNWIND range(0, size(ids) - 1) AS i
  MATCH (f:Fact {id: facts[i]})
  WHERE f.tenant = $tenant
  CREATE (s:Segment {id: ids[i], tenant: $tenant, scope: scopes[i], subject: subjects[i],
                     predicate: predicates[i], fact_id: f.id, recorded_at: f.recorded_at,
                     view: views[i]})
  SET s.sys_from = datetime(sys_from[i]),
      s.sys_to = CASE sys_to[i] WHEN '' THEN null ELSE datetime(sys_to[i]) END,
      s.valid_from = CASE valid_from[i] WHEN '' THEN null ELSE datetime(valid_from[i]) END,
      s.valid_to = CASE valid_to[i] WHEN '' THEN null ELSE datetime(valid_to[i]) END
  CREATE (s)-[:WINS]->(f)
  RETURN count(*) AS recreated
}
DELETE j
RETURN dropped, relabelled, recreated
