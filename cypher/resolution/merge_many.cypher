// params: tenant, merges, run_id, now
// returns: id, copy, retracted, carried
// A batch of auto-merges, each of entity `gone` into `keep` within one scope. A merge changes
// what is believed from `now` on and nothing before it: each believed version of that scope
// about `gone` is carried over as a copy about the survivor (a new version with its
// properties, evidence, object, vector and dependency edges; `entered_at` = now, so it is
// believed from the merge on, but competes in its new slot as the version it copies, told
// when that was: graph_memory/temporal VersionLife.entered_at), and the version itself is
// retracted at `now`, naming its copy (`merged_into`; the copy names it, `merged_from`, and
// the entity it was about, `subject_merged_from`). A read at an asOf before the merge finds
// the versions as they were, under the absorbed name. Each merge is an edge carrying the run
// and the score (removed again by a rollback, which also deletes the copies and reopens the
// versions). Not fact.retract: the claim goes on in its copy, so its dependents are not
// flagged; they depend on the copy too.
// The caller never lets an entity absorbed here be a survivor in the same run.
CYPHER 25
UNWIND $merges AS m
MATCH (src:Entity {tenant: $tenant, key: m.gone}), (dst:Entity {tenant: $tenant, key: m.keep})
MERGE (src)-[e:MERGED_INTO {run_id: $run_id, scope: m.scope}]->(dst)
SET e.score = m.score, e.at = $now
WITH src, dst, m
MATCH (f:Fact {tenant: $tenant, scope: m.scope, subject: m.gone})-[:ABOUT]->(src)
WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL
CREATE (c:Fact)
// One map, the new id in it: the unique id constraint is checked as each property is set.
SET c = f {.*, embedding: null, id: 'fact_' + replace(randomUUID(), '-', '')}
SET c.subject = dst.key,
    c.subject_name = coalesce(dst.name, dst.key),
    c.subject_merged_from = coalesce(f.subject_merged_from, f.subject),
    c.merged_from = f.id, c.entered_at = $now
CREATE (c)-[:ABOUT]->(dst)
SET f.retracted_at = $now, f.retracted_by = 'consolidation',
    f.retract_reason = "entity '" + m.gone + "' merged into '" + m.keep + "' in " + m.scope
      + ', continued as ' + c.id,
    f.status = 'retracted', f.merged_into = c.id, f.merged_at = $now,
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'retracted'
WITH f, c
// A served copy lands beside the survivor's versions without the write rule's tier guard: where
// a served version of a higher tier holds it (fact/_holds: another value, overlapping in a
// single-valued slot; an agent's inference about "ACME Corp." against the tenant's system
// fact about "Acme Corp"), it would answer over that fact by the time rule alone. So it is
// carried as a candidate held back, flagged for a reviewer, never served unless approved.
CALL (c) {
  WITH c
  WHERE c.status = 'active' AND EXISTS {
    MATCH (ot_h:Fact {tenant: $tenant, scope: c.scope, subject: c.subject,
                      predicate: c.predicate})
    WHERE ot_h <> c AND
#include fact/_holds(c)
  }
  WITH c, [i IN range(0, size(coalesce(c.changes, [])) - 1)
           WHERE c.changes[i] <> 'activated'] AS kept
  SET c.status = 'candidate', c.activated_at = null, c.needs_verification = true,
      c.flagged_at = $now,
      c.verification_reason = 'carried by an entity merge into a slot a higher tier holds '
        + 'with another value: approve it to serve it',
      c.changes = [i IN kept | c.changes[i]] + 'flagged',
      c.changes_at = [i IN kept | c.changes_at[i]] + $now
}
// Stored through the procedure, as fact.create does: a float32 array the index expects.
CALL (f, c) {
  WITH f, c WHERE f.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', f.embedding)
}
CALL (f, c) {
  MATCH (f)-[d:DERIVED_FROM]->(ep:Episode)
  CREATE (c)-[x:DERIVED_FROM]->(ep)
  SET x = properties(d)
  RETURN count(x) AS evidence
}
CALL (f, c) {
  MATCH (f)-[:OBJECT]->(o:Entity)
  CREATE (c)-[:OBJECT]->(o)
  RETURN count(o) AS objects
}
CALL (f, c) {
  MATCH (f)-[d:DEPENDS_ON]->(p:Fact)
  CREATE (c)-[x:DEPENDS_ON]->(p)
  SET x = properties(d)
  RETURN count(x) AS premises
}
CALL (f, c) {
  MATCH (q:Fact)-[d:DEPENDS_ON]->(f)
  CREATE (q)-[x:DEPENDS_ON]->(c)
  SET x = properties(d)
  RETURN count(x) AS dependents
}
// Exactly what changed, as fact.get shows it (fact/_state_times): the caller's diff and
// fingerprints need no second read of 20,000 versions.
RETURN f.id AS id, c.id AS copy,
       f {.status, .retracted_by, .retract_reason, .merged_into, .merged_at, .changes,
          retracted_at: toString(f.retracted_at),
          changes_at: [t IN f.changes_at | toString(t)]} AS retracted,
       c {.id, .subject, .subject_name, .subject_merged_from, .merged_from, .status,
          .needs_verification, .verification_reason, .changes,
          activated_at: toString(c.activated_at), entered_at: toString(c.entered_at),
          flagged_at: toString(c.flagged_at),
          changes_at: [t IN c.changes_at | toString(t)]} AS carried
