// Entities are walked in id order by a re-embedding (their name vectors), a batch at a time.
CREATE INDEX entity_id IF NOT EXISTS FOR (e:Entity) ON (e.id);
