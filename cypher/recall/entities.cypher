// params: tenant, scopes, keys, as_of
// returns: name, speaker
// Which of these normalised word sequences of a recall query name an entity that facts in the
// asked scopes are about (or point to), or a speaker of the asked scopes' transcript turns
// ("Leo: Poor guy.", domain.speaker_label): recall judges relevance on the rest of the query
// too (services/recall/ranking.py, mask_names). A speaker label is who said a turn, not what
// it says: without this, an episodes-only memory knows no names, and a question naming a
// speaker ranks that speaker's emptiest turns first (short turns win BM25's length norm and
// the embedder's cosine through the name alone). Another user's entity or speaker named like
// a common word ("May") must not change what this user's question means. Only facts and
// episodes recorded by as_of count: what a recall asOf a past moment makes of its question
// must not change with what was told since. An episode a running forget hides is not told.
// `speaker`: the name labels turns (recall then scores the vector part without the names).
#include forget/_hidden
UNWIND $keys AS key
CALL (key, hidden) {
  MATCH (e:Entity {tenant: $tenant, key: key})
  WHERE EXISTS { MATCH (f:Fact)-[:ABOUT|OBJECT]->(e)
                 WHERE f.scope IN $scopes AND f.recorded_at <= $as_of AND NOT
#include forget/_hidden_fact(f)
  }
  RETURN e.name AS name, false AS speaker
  UNION
  // One seek on the (tenant, speaker) index per key (schema 130); the first turn found ends it.
  WITH key, hidden
  WHERE EXISTS { MATCH (ep:Episode {tenant: $tenant, speaker: key})
                 WHERE ep.scope IN $scopes AND ep.recorded_at <= $as_of AND NOT
#include forget/_hidden_episode(ep)
  }
  RETURN key AS name, true AS speaker
  UNION
  // A one-word key naming the first word of a longer label: "Maria" asks about "Maria Lopez:"
  // (a prefix seek on the same index).
  WITH key, hidden
  WHERE NOT key CONTAINS ' '
    AND EXISTS { MATCH (ep:Episode)
                 WHERE ep.tenant = $tenant AND ep.speaker STARTS WITH key + ' '
                   AND ep.scope IN $scopes AND ep.recorded_at <= $as_of AND NOT
#include forget/_hidden_episode(ep)
  }
  RETURN key AS name, true AS speaker
}
RETURN name, any(s IN collect(speaker) WHERE s) AS speaker
