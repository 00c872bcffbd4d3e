// params: tenant, id
// returns: job
MATCH (j:ForgetJob {id: $id})
WHERE j.tenant = $tenant
RETURN j {.id, .receipt, .state, .phase, .batches, .counts, .contributors, .user_id,
          .actor_role, .actor_key, .actor_name, .predicates, marked_at: toString(j.marked_at),
          created_at: toString(j.created_at), updated_at: toString(j.updated_at),
          finished_at: toString(j.finished_at)} AS job
