// params: tenant, scopes, now
// returns: scope, subject, predicate, versions
// Slots of these scopes holding more than one live version, each version with its object
// (and the entity it names now, when that was merged), its tier, the validity it was told
// with and its support (distinct sessions, confidence). The caller groups them by the normalised
// object (domain.entity_key, the one rule) to find the ones told apart only by case or
// whitespace, which a version's stored object_key may not show (written by older code).
// Slots are grouped first and support is counted only for versions of crowded slots: at
// 100k facts counting every version's evidence was most of this step's time.
MATCH (f:Fact {tenant: $tenant})
WHERE f.scope IN $scopes AND f.status IN ['active', 'candidate']
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL AND f.rejected_at IS NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
WITH f.scope AS scope, f.subject AS subject, f.predicate AS predicate, collect(f) AS live
WHERE size(live) > 1
UNWIND live AS f
OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
WITH scope, subject, predicate, f,
     count(DISTINCT CASE WHEN e IS NULL THEN null ELSE [e.user_id, e.session_id] END)
       AS sessions
// An object naming an entity merged into another in this scope names the survivor: "Bob
// works_for ACME Corp." is "Bob works_for Acme Corp" once the two names are one entity.
OPTIONAL MATCH (f)-[:OBJECT]->(:Entity)-[merged:MERGED_INTO]->(survivor:Entity)
WHERE merged.scope = f.scope
WITH scope, subject, predicate, f, sessions, head(collect(survivor.key)) AS alias
WITH scope, subject, predicate,
     collect({id: f.id, object: f.object, object_key: f.object_key, status: f.status,
              alias: alias,
              sessions: sessions, confidence: coalesce(f.confidence, 0.0),
              tier_rank: coalesce(f.tier_rank, 0), recorded_at: toString(f.recorded_at),
              // When it holds, as told: a stated start and an end are part of the claim.
              valid_from: CASE WHEN coalesce(f.valid_from_stated, false)
                               THEN toString(f.valid_from) END,
              // When it holds from, given or defaulted (the survivor holds for all it absorbs).
              starts: toString(coalesce(f.valid_from, f.recorded_at)),
              valid_to: toString(f.valid_to)}) AS versions
RETURN scope, subject, predicate, versions
ORDER BY scope, subject, predicate
