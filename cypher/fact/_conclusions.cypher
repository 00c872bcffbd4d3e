// The conclusions still standing that were drawn from premise @node, however indirectly
// (DEPENDS_ON, bounded: a chain of conclusions deeper than 8 is not a thing a memory should
// hold): each `d`, with its `path` to the premise. One closure for flagging them
// (fact/flag_dependents) and for locking their scopes before (fact/conclusion_scopes).
MATCH path = (d:Fact)-[:DEPENDS_ON*1..8]->(@node)
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
