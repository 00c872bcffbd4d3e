// params: tenant, id
// returns: job
#include forget/_hidden
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant
  // A job whose session's contributor was forgotten holds their words (item texts): hidden
  // until the purge deletes it.
  AND NOT EXISTS { MATCH (e:Episode {id: j.episode_id}) WHERE
#include forget/_hidden_episode(e)
  }
RETURN j {.*} AS job
