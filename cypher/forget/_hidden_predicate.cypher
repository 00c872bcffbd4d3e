  // @node (a Predicate) is the forgotten contributors' word while their purge runs: nobody
  // defined it (definePredicates), and no fact but theirs uses it, whether the purge has
  // deleted those already or not (it deletes the name at its end: forget/delete_predicates).
  // CASE keeps it free when no forget is running.
  CASE WHEN size(hidden) = 0 OR @node.defined_by IS NOT NULL THEN false
       ELSE NOT EXISTS { MATCH (fg_pf:Fact)
                         WHERE fg_pf.tenant = $tenant AND fg_pf.predicate = @node.name AND NOT
#include forget/_hidden_fact(fg_pf)
                       } END
