// Entity-merge proposals were read and merged with no index: every run's proposals, the review
// queue and a rollback scanned all tenants' proposals. (tenant, scope, entity_a, entity_b) is
// the key a run merges on and serves the queue by scope; (tenant, run_id) a rollback's.
CREATE INDEX merge_proposal_pair IF NOT EXISTS
FOR (p:MergeProposal) ON (p.tenant, p.scope, p.entity_a, p.entity_b);
CREATE INDEX merge_proposal_run IF NOT EXISTS FOR (p:MergeProposal) ON (p.tenant, p.run_id)
