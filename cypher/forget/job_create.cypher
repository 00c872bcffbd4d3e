// params: tenant, id, receipt, user_id, contributors, actor_role, actor_key, actor_name, now
// returns: id
// The purge of phase 2. user_id is kept only while it runs (the residue of other capabilities
// is keyed by it) and cleared when it is done; the receipt names the user pseudonymously.
CREATE (j:ForgetJob {
  id: $id, tenant: $tenant, receipt: $receipt, user_id: $user_id,
  contributors: $contributors, state: 'running', phase: 'facts', batches: 0, counts: '{}',
  created_at: $now, updated_at: $now, marked_at: $now, caption: 'forget job',
  // Who asked: a resumed purge audits its changes as theirs.
  actor_role: $actor_role, actor_key: $actor_key, actor_name: $actor_name
})
RETURN j.id AS id
