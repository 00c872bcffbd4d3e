  // The event is about a fact or episode only forgotten contributors gave
  // (forget/_hidden): its content is theirs. So is an event about a fact they said before
  // anyone else, from before the others first said it: it recorded their telling (the purge
  // then blanks it for good: forget.redact_told_alone).
  CASE WHEN size(hidden) = 0 THEN false
       WHEN @node.target_type = 'fact' THEN EXISTS {
         MATCH (fg_x:Fact {id: @node.target_id}) WHERE fg_x.tenant = $tenant AND (
#include forget/_hidden_fact(fg_x)
           // CASE: the others' first telling is looked up only for a fact they took part in.
           OR CASE WHEN EXISTS { MATCH (fg_x)-[:DERIVED_FROM]->(fg_h:Episode)
                                 WHERE fg_h.contributor IN hidden }
                   THEN @node.at < COLLECT {
                     MATCH (fg_x)-[fg_d:DERIVED_FROM]->(fg_k:Episode)
                     WHERE NOT coalesce(fg_k.contributor IN hidden, false)
                     RETURN min(coalesce(fg_d.at, fg_x.recorded_at)) AS fg_t
                   }[0]
                   ELSE false END)
       }
       // A predicate's name is its content (the target id itself: audit/list shows a
       // stand-in for it).
       WHEN @node.target_type = 'predicate' THEN EXISTS {
         MATCH (fg_p:Predicate {tenant: $tenant, name: @node.target_id}) WHERE
#include forget/_hidden_predicate(fg_p)
       }
       WHEN @node.target_type = 'episode' THEN EXISTS {
         MATCH (fg_x:Episode {id: @node.target_id}) WHERE fg_x.tenant = $tenant AND
#include forget/_hidden_episode(fg_x)
       }
       ELSE false END
