// A rollback undoes a run batch by batch, newest first: each batch's snapshots are found by
// (run, batch), its journaled timeline writes by (tenant, run, batch). Snapshots made before
// this migration carry no batch: they are batch -1, and their slots are recomputed from the
// versions (resettle), as the rollback of that time did.
CREATE INDEX consolidation_snapshot_batch IF NOT EXISTS FOR (s:ConsolidationSnapshot) ON (s.snapshot_run, s.snapshot_batch);
CREATE INDEX consolidation_journal_batch IF NOT EXISTS FOR (j:ConsolidationJournal) ON (j.tenant, j.run_id, j.batch);
MATCH (s:ConsolidationSnapshot) WHERE s.snapshot_batch IS NULL SET s.snapshot_batch = -1, s.resettle = true;
