// params: tenant, id
// returns: job
#include forget/_hidden
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant
  // A job whose session's contributor was forgotten holds their words (item texts): hidden
  // until the purge deletes it (marked by forget/stop_ingest; the episode test covers a job
  // a forget from before that mark left).
  AND j.forgotten_at IS NULL
  AND NOT EXISTS { MATCH (e:Episode {id: j.episode_id}) WHERE
#include forget/_hidden_episode(e)
  }
RETURN j {.*} AS job
