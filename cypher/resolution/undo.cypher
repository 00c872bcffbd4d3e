// params: tenant, run_id
// returns: merges, proposals
// A rollback's share for entity resolution: the run's merge edges and the proposals it
// opened go (the facts it moved are restored from their snapshots).
OPTIONAL MATCH (:Entity {tenant: $tenant})-[m:MERGED_INTO {run_id: $run_id}]->(:Entity)
DELETE m
WITH count(m) AS merges
OPTIONAL MATCH (p:MergeProposal {tenant: $tenant, run_id: $run_id, status: 'open'})
DETACH DELETE p
RETURN merges, count(p) AS proposals
