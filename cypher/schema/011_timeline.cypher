// The stored timeline: one Segment per (winning version, belief interval, validity interval)
// and view, written by the change that causes it, so every bitemporal read is an interval
// predicate on an index seek (graph_memory/temporal decides the segments). One index per
// access path of cypher/fact/in_force_*: slot, subject, predicate, scope (newest first).
CREATE CONSTRAINT segment_id IF NOT EXISTS FOR (s:Segment) REQUIRE s.id IS UNIQUE;
CREATE INDEX segment_slot IF NOT EXISTS FOR (s:Segment) ON (s.tenant, s.scope, s.subject, s.predicate);
CREATE INDEX segment_subject IF NOT EXISTS FOR (s:Segment) ON (s.tenant, s.scope, s.subject);
CREATE INDEX segment_predicate IF NOT EXISTS FOR (s:Segment) ON (s.tenant, s.scope, s.predicate);
CREATE INDEX segment_scope_recorded IF NOT EXISTS FOR (s:Segment) ON (s.tenant, s.scope, s.recorded_at);
// When a version was said, as that moved with each re-telling (told_log_at[i]: the belief
// moment from which told_log[i] holds). Versions told before the log kept only one move.
MATCH (f:Fact) WHERE f.told_log_at IS NULL SET f.told_log_at = CASE WHEN f.told_moved_at IS NULL THEN [f.recorded_at] ELSE [f.recorded_at, f.told_moved_at] END, f.told_log = CASE WHEN f.told_moved_at IS NULL THEN [coalesce(f.told_at, f.recorded_at)] ELSE [coalesce(f.told_prev, f.recorded_at), f.told_at] END;
