// The version @node was written to supersede (its SUPERSEDES edge) ends now that @node is
// served as truth: at once for a version written active (fact/close_superseded), at its
// promotion for a candidate (fact/recompute_confidence, review/approve). A candidate only
// links: one session's inference must not end the fact it would replace before it is
// corroborated or approved, nor leave it ended if a reviewer rejects it. A version already
// ended since (superseded, retracted, rejected) is left as it is. Returns `closed` (its id,
// or null). Inside OPTIONAL CALL (@node) { WITH @node WHERE ... #include ... }.
OPTIONAL MATCH (@node)-[:SUPERSEDES]->(old:Fact)
WHERE old.superseded_at IS NULL AND old.retracted_at IS NULL AND old.rejected_at IS NULL
// successor_valid_from keeps the part of the old version's validity before the new one
// starts (shown in Browser/history; reads decide by the stored timeline).
SET old.superseded_at = $now, old.status = 'superseded',
    old.successor_valid_from = @node.valid_from, old.superseded_by = @node.id,
    old.changes_at = coalesce(old.changes_at, []) + $now,
    old.changes = coalesce(old.changes, []) + 'superseded'
RETURN old.id AS closed
