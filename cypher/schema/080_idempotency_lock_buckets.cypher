// Keyed fact batches lock a hash bucket (services/facts/prepare.py, idempotency_lock) instead of
// a lock node named after the key: the lock nodes of keys, which held the client's key verbatim
// and outlived a forgotten contributor, go. A batch in flight holding one is waited for.
MATCH (l:ScopeLock)
WHERE l.scope STARTS WITH 'idempotency:' AND NOT l.scope STARTS WITH 'idempotency:#'
CALL (l) { DETACH DELETE l } IN TRANSACTIONS OF 10000 ROWS
