// params: tenant, links
// returns: relinked
// Rewrites a chain as if the excised versions had never been written:
//  * older and newer survive: newer supersedes older directly, from newer's recording time;
//  * only older survives: it is current again (its successors were all excised);
//  * only newer survives: it supersedes nothing any more.
UNWIND $links AS link
CALL (link) {
  WITH link WHERE link.older IS NOT NULL AND link.newer IS NOT NULL
  MATCH (s:Fact {id: link.older}), (n:Fact {id: link.newer})
  WHERE s.tenant = $tenant AND n.tenant = $tenant
  MERGE (n)-[:SUPERSEDES]->(s)
  WITH s, n,
       [i IN range(0, size(coalesce(s.changes, [])) - 1) WHERE s.changes[i] <> 'superseded'] AS keep
  SET s.superseded_at = n.recorded_at, s.superseded_by = n.id,
      s.successor_valid_from = n.valid_from, n.supersedes = s.id,
      // Its supersession in the change log moves to the survivor's recording time.
      s.changes_at = [i IN keep | s.changes_at[i]] + n.recorded_at,
      s.changes = [i IN keep | s.changes[i]] + 'superseded'
}
CALL (link) {
  WITH link WHERE link.older IS NOT NULL AND link.newer IS NULL
  MATCH (s:Fact {id: link.older})
  WHERE s.tenant = $tenant
  WITH s,
       [i IN range(0, size(coalesce(s.changes, [])) - 1) WHERE s.changes[i] <> 'superseded'] AS keep
  SET s.superseded_at = null, s.superseded_by = null, s.successor_valid_from = null,
      s.changes_at = [i IN keep | s.changes_at[i]], s.changes = [i IN keep | s.changes[i]],
      s.status = CASE
        WHEN s.retracted_at IS NOT NULL THEN 'retracted'
        WHEN s.status <> 'superseded' THEN s.status
        // activated_at: it had been served as truth (promoted, approved or declared).
        WHEN s.activated_at IS NOT NULL THEN 'active'
        ELSE 'candidate' END
}
CALL (link) {
  WITH link WHERE link.older IS NULL AND link.newer IS NOT NULL
  MATCH (n:Fact {id: link.newer})
  WHERE n.tenant = $tenant
  SET n.supersedes = null
}
RETURN count(*) AS relinked
