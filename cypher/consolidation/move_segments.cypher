// params: tenant, rows
// returns: moved
// Segments that stay exactly as they are but now belong to another slot (a fact an entity
// merge moved, or a rollback moved back): relabelled in place instead of deleted and made
// again, which a merge of thousands of facts would otherwise pay per segment.
UNWIND $rows AS row
MATCH (s:Segment {id: row.id})
WHERE s.tenant = $tenant
SET s.scope = row.scope, s.subject = row.subject, s.predicate = row.predicate
RETURN count(s) AS moved
