// @node is current again: what ended it never did, as far as any asOf read can tell (a
// successor an excision took, a promotion a forget withdrew): its supersession leaves the
// change log, and its status is what it was before (SET evaluates each item in order: the
// log's times are filtered before the log itself).
SET @node.changes_at = [i IN range(0, size(coalesce(@node.changes, [])) - 1)
                        WHERE @node.changes[i] <> 'superseded' | @node.changes_at[i]],
    @node.changes = [c IN coalesce(@node.changes, []) WHERE c <> 'superseded'],
    @node.superseded_at = null, @node.superseded_by = null, @node.successor_valid_from = null,
    @node.status = CASE
      WHEN @node.retracted_at IS NOT NULL THEN 'retracted'
      WHEN @node.status <> 'superseded' THEN @node.status
      // activated_at: it had been served as truth (promoted, approved or declared).
      WHEN @node.activated_at IS NOT NULL THEN 'active'
      ELSE 'candidate' END
