  // A served version of another value, held at a higher tier, overlaps @node in its
  // single-valued slot (fact/_holds): corroboration never lifts a candidate over it; only a
  // reviewer's approval does, or that version's end by a decision (fact/held_back). Used where
  // promotions are decided (fact/recompute_confidence promotes, consolidation/promotable
  // plans promotions).
  // The tenant scope's shared truth holds an inference of a narrower scope too, as the write
  // rule refuses one contradicting it (services/facts/rules.check_shared_truth).
  // Each looked up on the slot index.
  (EXISTS {
     MATCH (ot_h:Fact {tenant: $tenant, scope: @node.scope, subject: @node.subject,
                       predicate: @node.predicate})
     WHERE
#include fact/_holds(@node)
   }
   OR (@node.scope <> 'tenant' AND @node.tier = 'inferred' AND EXISTS {
     MATCH (ot_h:Fact {tenant: $tenant, scope: 'tenant', subject: @node.subject,
                       predicate: @node.predicate})
     WHERE
#include fact/_holds(@node)
   }))
