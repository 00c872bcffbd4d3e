// params: tenant, rows, now
// returns: id
// Closes belief in the old version and links new -> old. successor_valid_from keeps the part
// of the old version's validity before the new one starts (shown in Browser/history; reads
// decide by the in-force rule in fact.in_force_*).
UNWIND $rows AS row
MATCH (old:Fact {id: row.old})
WHERE old.tenant = $tenant AND old.superseded_at IS NULL
MATCH (new:Fact {id: row.new})
SET old.superseded_at = $now, old.status = 'superseded',
    old.successor_valid_from = datetime(row.valid_from), old.superseded_by = row.new,
    old.changes_at = coalesce(old.changes_at, []) + $now,
    old.changes = coalesce(old.changes, []) + 'superseded'
CREATE (new)-[:SUPERSEDES]->(old)
RETURN old.id AS id
