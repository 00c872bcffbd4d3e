// params: tenant, rows
// returns: moved
// Segments that stay exactly as they are but now belong to another slot (a fact an entity
// merge moved, or a rollback moved back): relabelled in place instead of deleted and made
// again, which a merge of thousands of facts would otherwise pay per segment.
UNWIND $rows AS row
MATCH (s:Segment {id: row.id})
WHERE s.tenant = $tenant
// Only what differs (a merge changes the subject): a property set to the value it has still
// updates every index on it, and scope is in all four of Segment's.
FOREACH (_ IN CASE WHEN s.scope <> row.scope THEN [1] ELSE [] END | SET s.scope = row.scope)
FOREACH (_ IN CASE WHEN s.subject <> row.subject THEN [1] ELSE [] END |
  SET s.subject = row.subject)
FOREACH (_ IN CASE WHEN s.predicate <> row.predicate THEN [1] ELSE [] END |
  SET s.predicate = row.predicate)
RETURN count(s) AS moved
