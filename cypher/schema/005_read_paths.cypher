// Scope-wide fact listings read newest first: an index the planner can seek and order by.
CREATE INDEX fact_scope_recorded IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope, f.recorded_at);
// Subject-wide listings (any predicate) use the slot index's prefix; entity lookups by id.
CREATE INDEX fact_subject IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.subject);
CREATE INDEX entity_id IF NOT EXISTS FOR (e:Entity) ON (e.id);
