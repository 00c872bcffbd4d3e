// params: tenant, id
// returns: rival
// The served version a reviewer's approval of the flagged version $id ends (review/approve):
// the one an entity merge left answering its single-valued slot with another value, named
// on the flag by consolidation (consolidation/merge_disagreements), while it still is served
// there. Approving the claim the merge silenced is keeping that side: it answers from then on.
// None for any other flag (a contradiction across scopes: each side may hold in its own).
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.status = 'active' AND f.needs_verification = true
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND coalesce(f.cardinality, 'one') = 'one'
  // Still that flag: another flag since (a premise in doubt) replaces the reason and not the
  // rival, and approving it must not turn down an answer the reviewer was not shown. The
  // merge's reason ends naming the rival (consolidation/merge_disagreements).
  AND f.verification_reason ENDS WITH 'its answer is fact ' + f.verification_rival
MATCH (r:Fact {id: f.verification_rival})
WHERE r.tenant = $tenant AND r.scope = f.scope AND r.subject = f.subject
  AND r.predicate = f.predicate AND r.object_key <> f.object_key
  AND r.status = 'active' AND r.superseded_at IS NULL AND r.retracted_at IS NULL
  AND r.rejected_at IS NULL
RETURN r {.*, embedding: null} AS rival
