// params: tenant, run_id, batch, ids
// returns: id
// Memories a batch created (an entity merge's copies of the versions it carries over): their
// snapshot says so (`created`, no properties to restore), and a rollback of the batch deletes
// them. The slot is kept for a rollback that recomputes slots (it names where the memory was).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
CREATE (s:ConsolidationSnapshot)
SET s.snapshot_run = $run_id, s.snapshot_of = f.id, s.snapshot_batch = $batch,
    s.resettle = false, s.created = true, s.snapshot_keys = [],
    s.tenant = f.tenant, s.scope = f.scope, s.subject = f.subject, s.predicate = f.predicate
RETURN f.id AS id
