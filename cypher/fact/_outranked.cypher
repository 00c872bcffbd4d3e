  // A served version of another value, held at a higher tier, overlaps @node in its
  // single-valued slot (a user said Rome after the agent first inferred Berlin): corroboration
  // never lifts a candidate over it; only a reviewer's approval does. The one place this is
  // decided (fact/recompute_confidence promotes, consolidation/promotable plans promotions).
  EXISTS {
    MATCH (ot_h:Fact {tenant: $tenant, scope: @node.scope, subject: @node.subject,
                      predicate: @node.predicate})
    WHERE coalesce(@node.cardinality, 'one') = 'one' AND ot_h.object_key <> @node.object_key
      AND ot_h.status = 'active' AND ot_h.superseded_at IS NULL AND ot_h.retracted_at IS NULL
      AND ot_h.rejected_at IS NULL AND (ot_h.expires_at IS NULL OR ot_h.expires_at > $now)
      AND coalesce(ot_h.tier_rank, 0) > coalesce(@node.tier_rank, 0)
      AND (
        // It holds where @node starts: @node, served from there, would take it over.
        (ot_h.valid_from <= @node.valid_from
         AND (ot_h.valid_to IS NULL OR ot_h.valid_to > @node.valid_from))
        // Both told without a start, overlapping: the one told last answers, and the
        // corroboration made it @node. (One that starts later, with a start given, keeps its
        // years whatever is promoted before them: back-filled history is no conflict.)
        OR (NOT coalesce(ot_h.valid_from_stated, false)
            AND NOT coalesce(@node.valid_from_stated, false)
            AND (ot_h.valid_to IS NULL OR ot_h.valid_to > @node.valid_from)
            AND (@node.valid_to IS NULL OR @node.valid_to > ot_h.valid_from)))
  }
