// Whom a session token acted for gets a field of its own on what it wrote (`acted_for` on
// audit events, `created_for`/`retracted_for` on facts, `closed_for` on todos: the user id,
// written with the actor "<role>:<key> for <user>"), range-indexed, instead of the text
// indexes of schema 100 over the actor fields. A forget finds the marks by equality just as
// fast, and a write no longer pays a Lucene text-index update in its commit for every audit
// event and fact (about 3 ms each, measured: every write of every tenant paid it, to serve a
// forget of a token-served user). Marks written before are given the field from the actor's
// suffix (tokens are agents; a user id has no space, so it is what follows the last " for ").
CREATE INDEX audit_acted_for IF NOT EXISTS FOR (a:AuditEvent) ON (a.tenant, a.acted_for);
CREATE INDEX fact_created_for IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.created_for);
CREATE INDEX fact_retracted_for IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.retracted_for);
CREATE INDEX memo_closed_for IF NOT EXISTS FOR (m:Memo) ON (m.tenant, m.closed_for);
MATCH (a:AuditEvent)
WHERE a.actor STARTS WITH 'agent:' AND a.actor CONTAINS ' for ' AND a.acted_for IS NULL
  AND NOT a.actor ENDS WITH ' for [forgotten]'
CALL (a) { SET a.acted_for = last(split(a.actor, ' for ')) } IN TRANSACTIONS OF 10000 ROWS;
MATCH (f:Fact)
WHERE f.created_by STARTS WITH 'agent:' AND f.created_by CONTAINS ' for '
  AND f.created_for IS NULL AND NOT f.created_by ENDS WITH ' for [forgotten]'
CALL (f) { SET f.created_for = last(split(f.created_by, ' for ')) } IN TRANSACTIONS OF 10000 ROWS;
MATCH (f:Fact)
WHERE f.retracted_by STARTS WITH 'agent:' AND f.retracted_by CONTAINS ' for '
  AND f.retracted_for IS NULL AND NOT f.retracted_by ENDS WITH ' for [forgotten]'
CALL (f) { SET f.retracted_for = last(split(f.retracted_by, ' for ')) } IN TRANSACTIONS OF 10000 ROWS;
MATCH (m:Memo)
WHERE m.closed_by STARTS WITH 'agent:' AND m.closed_by CONTAINS ' for '
  AND m.closed_for IS NULL AND NOT m.closed_by ENDS WITH ' for [forgotten]'
CALL (m) { SET m.closed_for = last(split(m.closed_by, ' for ')) } IN TRANSACTIONS OF 10000 ROWS;
DROP INDEX fact_created_by_text IF EXISTS;
DROP INDEX fact_retracted_by_text IF EXISTS;
DROP INDEX memo_closed_by_text IF EXISTS;
DROP INDEX audit_actor_text IF EXISTS
