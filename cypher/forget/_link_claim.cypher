    // What the telling behind an evidence link said (fact/create, fact/add_evidence), for
    // graph_memory/temporal/withdrawal.Claim (repositories/timeline.link_of): fields of a
    // link map.
    tier: @node.tier, claim_source: @node.claim_source, claim_from: toString(@node.claim_from),
    claim_to: toString(@node.claim_to), claim_stated: @node.claim_stated
