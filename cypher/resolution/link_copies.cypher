// params: tenant, pairs, copy_of
// returns: id, supersedes, superseded_by
// Links between versions one merge carried over together, remade between their copies
// (resolution/merge_many copies each version's properties, which name the originals, and its
// dependency edges, which join the originals; it copies no SUPERSEDES edge): a supersession
// chain of the absorbed slot continues as a chain of the copies (SUPERSEDES edges and the
// supersedes / superseded_by names, which forget's chain rewriting follows), and a dependency
// between two of them as one between the copies. A copy whose neighbour in the chain was not
// carried (retracted or rejected) keeps naming the original.
// `pairs`: {id: original, copy} for the batch; `copy_of`: the same as a map. Returns each
// copy whose names changed, with them (the caller's state after).
UNWIND $pairs AS p
MATCH (c:Fact {id: p.copy})
WHERE c.tenant = $tenant
CALL (c) {
  MATCH (:Fact {id: c.merged_from})-[s:SUPERSEDES]->(old:Fact)
  WHERE $copy_of[old.id] IS NOT NULL
  MATCH (old_copy:Fact {id: $copy_of[old.id]})
  MERGE (c)-[x:SUPERSEDES]->(old_copy)
  SET x += properties(s)
  RETURN count(x) AS chained
}
CALL (c) {
  MATCH (q:Fact {id: c.merged_from})-[:DEPENDS_ON]->(premise:Fact)
  WHERE $copy_of[premise.id] IS NOT NULL
  MATCH (premise_copy:Fact {id: $copy_of[premise.id]})
  // merge_many gave the copy an edge to the original premise and the original an edge to
  // the premise's copy: both become the one edge between the copies.
  OPTIONAL MATCH (c)-[cross:DEPENDS_ON]->(premise)
  OPTIONAL MATCH (q)-[extra:DEPENDS_ON]->(premise_copy)
  MERGE (c)-[x:DEPENDS_ON]->(premise_copy)
  SET x += coalesce(properties(cross), {})
  DELETE cross, extra
  RETURN count(x) AS depended
}
WITH c, coalesce($copy_of[c.supersedes], c.supersedes) AS supersedes,
     coalesce($copy_of[c.superseded_by], c.superseded_by) AS superseded_by
WHERE coalesce(supersedes, '') <> coalesce(c.supersedes, '')
   OR coalesce(superseded_by, '') <> coalesce(c.superseded_by, '')
SET c.supersedes = supersedes, c.superseded_by = superseded_by
RETURN c.id AS id, c.supersedes AS supersedes, c.superseded_by AS superseded_by
