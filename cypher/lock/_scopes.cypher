// The write locks of $scopes, taken in the order given (sorted by the caller, so two writers
// never wait on each other in a circle); MERGE on the unique (tenant, scope) makes a first
// lock of a new scope safe to race. Each lock counts its writers (seq, which
// consolidation/seqs.cypher compares) and keeps the latest clock a writer of its scope
// stamped its changes with (stamp, written at commit by lock/stamp.cypher): the taker's
// clock follows it, whichever process's clock wrote it (temporal/clock.py), and the
// server's clock now (server_now): a taker whose own clock runs behind stamps after that too.
CALL () {
  UNWIND $scopes AS scope
  MERGE (l:ScopeLock {tenant: $tenant, scope: scope})
  ON CREATE SET l.caption = 'lock ' + scope
  SET l.seq = coalesce(l.seq, 0) + 1
  RETURN count(l) AS locked, toString(max(l.stamp)) AS lock_stamp
}
// Outside the aggregation: one row also when no lock is taken (all held already).
WITH *, toString(datetime.realtime()) AS server_now
