// Consolidation runs apply in bounded batches: each batch finds the snapshots, changes and
// leases of its run by key, and a rollback pages through a run's snapshots; without these
// every lookup scanned all snapshots of every run ever kept.
CREATE INDEX consolidation_snapshot_run IF NOT EXISTS FOR (s:ConsolidationSnapshot) ON (s.snapshot_run, s.snapshot_of);
CREATE INDEX consolidation_run_id IF NOT EXISTS FOR (r:ConsolidationRun) ON (r.tenant, r.id);
CREATE INDEX consolidation_change_run IF NOT EXISTS FOR (x:ConsolidationChange) ON (x.run_id);
CREATE INDEX consolidation_lease IF NOT EXISTS FOR (l:ConsolidationLease) ON (l.tenant, l.scope);
CREATE INDEX consolidation_lease_run IF NOT EXISTS FOR (l:ConsolidationLease) ON (l.tenant, l.run_id);
