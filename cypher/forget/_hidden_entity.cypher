  // Only facts of forgotten contributors name the entity (forget/_hidden): its name is theirs.
  CASE WHEN size(hidden) = 0 THEN false
       ELSE EXISTS { (@node)<-[:ABOUT|OBJECT]-(:Fact) }
            AND NOT EXISTS { MATCH (@node)<-[:ABOUT|OBJECT]-(fg_f:Fact) WHERE NOT
#include forget/_hidden_fact(fg_f)
            } END
