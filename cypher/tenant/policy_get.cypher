// params: tenant
// returns: policy, version, updated_at, updated_by
// The tenant's policy override (JSON over the defaults); a tenant never configured gets nulls.
OPTIONAL MATCH (t:Tenant {id: $tenant})
RETURN t.policy AS policy, t.policy_version AS version, t.policy_updated_at AS updated_at,
       t.policy_updated_by AS updated_by
