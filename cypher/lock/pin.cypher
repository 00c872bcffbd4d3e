// params: tenant, scopes
// returns: locked
// A read as of a moment (not in the future) makes its answer final (services/read_basis.py),
// first statement of two in one transaction: it takes each scope's write lock in the order
// given (sorted by the caller, as writers take them), so it waits for the writer holding one
// to commit. The lock is taken by counting the read (pins); lock/pin_stamp, the next
// statement, reads the stamp only then: a stamp read before the wait would be the stale one.
// A scope never written is MERGEd only to wait for a first writer creating its lock, and is
// marked to be dropped again.
UNWIND $scopes AS scope
MERGE (l:ScopeLock {tenant: $tenant, scope: scope})
ON CREATE SET l.unwritten = true
SET l.pins = coalesce(l.pins, 0) + 1
RETURN count(l) AS locked
