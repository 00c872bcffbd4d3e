// params: tenant, rows, now
// returns: id
// New fact versions and their subjects, one flat statement per batch (UNWIND): the evidence,
// object, dependency and supersession edges are separate statements in the same transaction.
UNWIND $rows AS row
CREATE (f:Fact)
SET f += row.props  // += on a new node: skips clearing properties it does not have yet
// Times travel as ISO strings: the driver's per-value datetime encoding cost more than the
// rest of the row. recorded_at/activated_at are the transaction's one clock reading.
SET f.recorded_at = $now,
    f.activated_at = CASE WHEN row.active THEN $now ELSE null END,
    f.valid_from = datetime(row.valid_from),
    f.valid_to = datetime(row.valid_to),
    f.expires_at = datetime(row.expires_at),
    f.told_at = datetime(row.told_at),
    // When it was said, as that moves with each re-telling (read by graph_memory/temporal).
    f.told_log_at = [$now], f.told_log = [coalesce(datetime(row.told_at), $now)]
MERGE (s:Entity {tenant: $tenant, key: row.subject})
ON CREATE SET s.id = row.subject_id, s.name = row.subject_name, s.caption = row.subject_name
CREATE (f)-[:ABOUT]->(s)
RETURN count(f) AS id
