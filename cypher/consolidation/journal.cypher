// params: tenant, run_id, batch, moved, created, deleted, closed
// returns: id
// The timeline writes of one run batch (services/consolidation/timeline.SlotWrites),
// committed with the batch: each segment an entity merge relabelled with its former slot, the
// segments created, each deleted segment whole, and the open segments a settle ended. One node of parallel lists per batch (a property list cannot
// hold null: an open end is stored as ''). A rollback inverts them, newest batch first.
CREATE (j:ConsolidationJournal {tenant: $tenant, run_id: $run_id, batch: $batch})
SET j.moved_ids = [m IN $moved | m.id],
    j.moved_scopes = [m IN $moved | m.scope],
    j.moved_subjects = [m IN $moved | m.subject],
    j.moved_predicates = [m IN $moved | m.predicate],
    j.created_ids = $created,
    j.closed_ids = $closed,
    j.deleted_ids = [d IN $deleted | d.id],
    j.deleted_facts = [d IN $deleted | d.fact_id],
    j.deleted_views = [d IN $deleted | d.view],
    j.deleted_scopes = [d IN $deleted | d.scope],
    j.deleted_subjects = [d IN $deleted | d.subject],
    j.deleted_predicates = [d IN $deleted | d.predicate],
    j.deleted_sys_from = [d IN $deleted | coalesce(d.sys_from, '')],
    j.deleted_sys_to = [d IN $deleted | coalesce(d.sys_to, '')],
    j.deleted_valid_from = [d IN $deleted | coalesce(d.valid_from, '')],
    j.deleted_valid_to = [d IN $deleted | coalesce(d.valid_to, '')]
RETURN j.batch AS id
