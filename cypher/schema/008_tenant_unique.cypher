// One Tenant node per id. The write lock is taken on this node; without the constraint two
// first writers of a tenant could each MERGE their own node and not exclude each other.
// Duplicates made that way are folded first, keeping the one that holds the most settings.
MATCH (t:Tenant) WITH t ORDER BY size(keys(t)) DESC WITH t.id AS id, collect(t) AS ts WHERE size(ts) > 1 UNWIND ts[1..] AS extra DETACH DELETE extra;
CREATE CONSTRAINT tenant_id IF NOT EXISTS FOR (t:Tenant) REQUIRE t.id IS UNIQUE;
