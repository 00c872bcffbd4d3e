  // Only facts of forgotten contributors name the entity (forget/_hidden): its name is theirs.
  // Once the purge has deleted those facts, a name a consolidation merge keeps with nothing
  // naming its group (entity/_merged_nameless) is still theirs, until the purge's end deletes it.
  CASE WHEN size(hidden) = 0 THEN false
       ELSE (EXISTS { (@node)<-[:ABOUT|OBJECT]-(:Fact) }
             AND NOT EXISTS { MATCH (@node)<-[:ABOUT|OBJECT]-(fg_f:Fact) WHERE NOT
#include forget/_hidden_fact(fg_f)
             })
            OR
#include entity/_merged_nameless(@node)
       END
