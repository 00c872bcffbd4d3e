// @node is ended by the version `k` (a variable of the including query) instead of the one
// that ended it before: from when `k` was first served, its supersession in the change log
// moved there (an excision took its ender, or withdrew the ender's promotion).
SET @node.changes_at = [i IN range(0, size(coalesce(@node.changes, [])) - 1)
                        WHERE @node.changes[i] <> 'superseded' | @node.changes_at[i]]
                       + k.activated_at,
    @node.changes = [c IN coalesce(@node.changes, []) WHERE c <> 'superseded'] + 'superseded',
    @node.superseded_at = k.activated_at, @node.superseded_by = k.id,
    @node.successor_valid_from = k.valid_from
