      // `ot_h`, a version of @node's slot, holds @node back from promotion: served, of
      // another value, at a higher tier, overlapping it in its single-valued slot (a user said
      // Rome after the agent first inferred Berlin). The one place this is decided
      // (fact/_outranked asks whether any version does; fact/held_back which candidates one
      // version does, before it ends).
      coalesce(@node.cardinality, 'one') = 'one' AND ot_h.object_key <> @node.object_key
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
