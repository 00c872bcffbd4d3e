// params: tenant, links
// returns: relinked
// Rewrites a chain as if the excised versions had never been written:
//  * older and newer survive: newer supersedes older directly, from when newer was first
//    served as truth (a newer candidate never promoted only links to it: older is current);
//  * only older survives: it is current again (its successors were all excised);
//  * only newer survives: it supersedes nothing any more.
UNWIND $links AS link
OPTIONAL MATCH (n:Fact {id: link.newer})
WHERE n.tenant = $tenant
// A newer version written a candidate and never promoted only links (fact/_close_linked):
// the older one is current again, as if nothing had followed it.
WITH link, n, n IS NOT NULL AND n.activated_at IS NOT NULL AS served
CALL (link, n, served) {
  WITH link, n, served WHERE link.older IS NOT NULL AND n IS NOT NULL
  MATCH (s:Fact {id: link.older})
  WHERE s.tenant = $tenant
  MERGE (n)-[:SUPERSEDES]->(s)
  SET n.supersedes = s.id
  WITH s, n, served WHERE served
  WITH s, n,
       [i IN range(0, size(coalesce(s.changes, [])) - 1) WHERE s.changes[i] <> 'superseded'] AS keep
  // From when the newer one was first served: its recording, or its promotion.
  SET s.superseded_at = n.activated_at, s.superseded_by = n.id,
      s.successor_valid_from = n.valid_from,
      // Its supersession in the change log moves to that moment.
      s.changes_at = [i IN keep | s.changes_at[i]] + n.activated_at,
      s.changes = [i IN keep | s.changes[i]] + 'superseded'
}
CALL (link, served) {
  WITH link WHERE link.older IS NOT NULL AND NOT served
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
CALL (link, n) {
  WITH link, n WHERE link.older IS NULL AND n IS NOT NULL
  SET n.supersedes = null
}
RETURN count(*) AS relinked
