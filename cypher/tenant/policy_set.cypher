// params: tenant, policy, now, actor
// returns: policy, version, updated_at, updated_by
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $now, t.caption = $tenant
SET t.policy = $policy, t.policy_version = coalesce(t.policy_version, 0) + 1,
    t.policy_updated_at = $now, t.policy_updated_by = $actor
RETURN t.policy AS policy, t.policy_version AS version, t.policy_updated_at AS updated_at,
       t.policy_updated_by AS updated_by
