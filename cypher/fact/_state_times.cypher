          // A version's times inside its state map (versions.FactVersion.from_row reads it;
          // consolidation fingerprints it): ISO text, since the driver decodes a temporal
          // value ~40x slower than Python parses text.
          recorded_at: toString(@node.recorded_at), activated_at: toString(@node.activated_at),
          valid_from: toString(@node.valid_from), valid_to: toString(@node.valid_to),
          expires_at: toString(@node.expires_at), superseded_at: toString(@node.superseded_at),
          successor_valid_from: toString(@node.successor_valid_from),
          retracted_at: toString(@node.retracted_at), flagged_at: toString(@node.flagged_at),
          verified_at: toString(@node.verified_at), told_at: toString(@node.told_at),
          entered_at: toString(@node.entered_at),
          changes_at: [t IN coalesce(@node.changes_at, []) | toString(t)],
          last_retrieved_at: toString(@node.last_retrieved_at)
