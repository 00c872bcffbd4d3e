// params: tenant, facts, episodes, procedures, memos, as_of
// returns: id, node, evidence, touched
// The full records of recalled items and their provenance, in one round trip: supporting
// episodes (fact and memo DERIVED_FROM, procedure EVIDENCED_BY; an episode is its own
// evidence, a digest's are its members) with their contributors. Only the few survivors of ranking get here, never every candidate.
#include forget/_hidden
CALL (hidden) {
  UNWIND $facts AS id
  MATCH (f:Fact {id: id})
  WHERE f.tenant = $tenant AND NOT
#include forget/_hidden_fact(f)
  OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(src:Episode)
  WHERE NOT
#include forget/_hidden_episode(src)
  RETURN f AS n, src, d.weight AS weight, null AS success, d.at AS linked_at,
#include forget/_their_text(f)
         AS text,
         // A forget in flight changes how it reads: the reader shows it as the purge will
         // leave it (repositories/shadow.py).
         CASE WHEN
#include forget/_touched_view(f)
         THEN {scope: f.scope, subject: f.subject, predicate: f.predicate} END AS touched
  UNION ALL
  UNWIND $procedures AS id
  MATCH (p:Procedure {id: id})
  WHERE p.tenant = $tenant AND NOT
#include forget/_hidden_procedure(p)
  // As it stood at as_of (status, counts), with each episode's verdict then.
#include procedure/_as_of(p)
#include procedure/_verdicts(p)
  WITH then, CASE WHEN NOT
#include forget/_hidden_episode(e)
       THEN e END AS src, r
  RETURN then AS n, src, null AS weight, r.success AS success, null AS linked_at,
         then.text AS text, null AS touched
  UNION ALL
  UNWIND $memos AS id
  MATCH (m:Memo {id: id})
  WHERE m.tenant = $tenant AND NOT
#include forget/_hidden_fact(m)
  OPTIONAL MATCH (m)-[d:DERIVED_FROM]->(src:Episode)
  WHERE NOT
#include forget/_hidden_episode(src)
  RETURN m AS n, src, d.weight AS weight, null AS success, d.at AS linked_at, m.text AS text,
         null AS touched
  UNION ALL
  UNWIND $episodes AS id
  MATCH (e:Episode {id: id})
  WHERE e.tenant = $tenant AND NOT
#include forget/_hidden_episode(e)
  // A digest rests on its members (DERIVED_FROM): they are its provenance, each with its own
  // contributor; any other episode is its own.
  OPTIONAL MATCH (e)-[:DERIVED_FROM]->(m:Episode)
  WITH e, collect(m) AS members
  UNWIND CASE WHEN size(members) = 0 THEN [e] ELSE members END AS src
  RETURN e AS n, src, null AS weight, null AS success, null AS linked_at, e.text AS text,
         null AS touched
}
OPTIONAL MATCH (src)-[:CONTRIBUTED_BY]->(u:User)
WITH n, text, touched, src, weight, success, linked_at, u ORDER BY src.started_at
WITH n, text, touched, collect(CASE WHEN src IS NULL THEN null ELSE {
       episode_id: src.id, session_id: src.session_id, user_id: u.id, weight: weight,
       success: success, started_at: toString(src.started_at), summary: src.summary,
       source: src.source, linked_at: toString(linked_at)
     } END) AS evidence
// The node as [key, value] pairs with its times as ISO text (any of the three kinds, whatever
// time properties it has): the driver decodes a temporal value ~40x slower than Python parses
// text, and a recalled fact carries a dozen of them (domain.as_datetime reads both).
RETURN n.id AS id, [k IN keys(n) WHERE k <> 'embedding' | [k,
         CASE WHEN k = 'text' THEN text  // a fact's free text is withheld while its writer's forget runs
              WHEN valueType(n[k]) STARTS WITH 'ZONED DATETIME' THEN toString(n[k])
              WHEN valueType(n[k]) STARTS WITH 'LIST<ZONED DATETIME'
              THEN [t IN n[k] | toString(t)]
              ELSE n[k] END]] AS node, evidence, touched
