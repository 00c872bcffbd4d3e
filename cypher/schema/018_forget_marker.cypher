// Forgetting in two phases (services/forget/service.py). Phase 1 writes one (:Forgotten) marker per
// contributor; every read looks the tenant's markers up by this constraint's index and hides
// what only they contributed, so the call is small whatever the contributor's size. Phase 2,
// a (:ForgetJob), purges in batches. A contributor is a User node's `key`, not its id: after
// a forget the same user id starts a new, unrelated contributor. Episodes carry their
// contributor's key (it never changes), so "only theirs" is a lookup on the episode.
CREATE CONSTRAINT forgotten_contributor IF NOT EXISTS FOR (h:Forgotten) REQUIRE (h.tenant, h.contributor) IS UNIQUE;
CREATE CONSTRAINT forget_job_id IF NOT EXISTS FOR (j:ForgetJob) REQUIRE j.id IS UNIQUE;
CREATE INDEX forget_job_receipt IF NOT EXISTS FOR (j:ForgetJob) ON (j.tenant, j.receipt);
CREATE INDEX forget_job_state IF NOT EXISTS FOR (j:ForgetJob) ON (j.state);
MATCH (u:User) WHERE u.key IS NULL SET u.key = randomUUID();
CREATE CONSTRAINT user_contributor IF NOT EXISTS FOR (u:User) REQUIRE u.key IS UNIQUE;
MATCH (e:Episode)-[:CONTRIBUTED_BY]->(u:User) WHERE e.contributor IS NULL SET e.contributor = u.key;
