// params: tenant, ids, outcome, episode_id, now, actor, outranking
// returns: id, kind, recorded, counted, helpful, harmful
// What retrieved memories (facts or episodes) led to in an episode: one verdict in force per
// (episode, memory), a second report replacing the first from its moment on. A verdict is
// never rewritten: each report adds one (as each adds its audit event), so the counts as of a
// moment between two reports keep the first (outcome/_verdicts takes each user's latest by
// then), and a repeated verdict is the user's latest again. A verdict counts only when the
// memory's tier is not above the reporter's role cap (``outranking``: the tiers above it), so
// a user-tier credential cannot demote (or restore) system or admin memory; it is still
// recorded. The counts are per contributor, each user's latest counted verdict (an episode's
// user; an episode without one counts alone), so many episodes of one user weigh as one. They
// are recounted after the memory is write-locked (the first SET), so concurrent reports never
// lose one. Usage, not belief: confidence is left alone; recall's salience reads the counts.
// No row at all when the episode is not the tenant's.
MATCH (ep:Episode {id: $episode_id})
WHERE ep.tenant = $tenant
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
WITH ep, id, coalesce(f, e) AS m,
     CASE WHEN f IS NOT NULL THEN 'fact' WHEN e IS NOT NULL THEN 'episode' END AS kind
CALL (ep, m) {
  WITH ep, m WHERE m IS NOT NULL
  SET m.last_outcome_at = $now
  WITH ep, m, NOT coalesce(m.tier, '') IN $outranking AS counted
  CREATE (ep)-[:LED_TO {outcome: $outcome, at: $now, actor: $actor, counted: counted}]->(m)
  WITH m, counted
#include outcome/_recount(m)
  RETURN counted, helpful, harmful
  UNION
  WITH m WHERE m IS NULL
  RETURN null AS counted, null AS helpful, null AS harmful
}
RETURN id, kind, m IS NOT NULL AS recorded, counted, helpful, harmful
