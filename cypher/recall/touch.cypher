// params: tenant, rows
// returns: touched
// Retrieval bookkeeping, written in batches off the hot path: how often and how recently each
// memory was served (feeds consolidation's decay and garbage collection).
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (f:Fact {id: row.id})
  WHERE row.kind = 'fact' AND f.tenant = $tenant
  OPTIONAL MATCH (e:Episode {id: row.id})
  WHERE row.kind = 'episode' AND e.tenant = $tenant
  OPTIONAL MATCH (p:Procedure {id: row.id})
  WHERE row.kind = 'procedure' AND p.tenant = $tenant
  OPTIONAL MATCH (m:Memo {id: row.id})
  WHERE row.kind = 'memo' AND m.tenant = $tenant
  WITH coalesce(f, e, p, m) AS n
  WHERE n IS NOT NULL
  SET n.retrieval_count = coalesce(n.retrieval_count, 0) + row.count,
      n.last_retrieved_at = CASE
        WHEN n.last_retrieved_at IS NULL OR n.last_retrieved_at < row.at THEN row.at
        ELSE n.last_retrieved_at END
  RETURN count(n) AS one
}
RETURN sum(one) AS touched
