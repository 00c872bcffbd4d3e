// One object's versions in a many-valued slot: the in-force rule compares a version with the
// other versions of the same object only, and a "likes" slot can hold hundreds of objects.
CREATE INDEX fact_object_slot IF NOT EXISTS FOR (f:Fact) ON (f.tenant, f.scope, f.subject, f.predicate, f.object_key);
