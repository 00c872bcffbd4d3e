  // In force at (as_of, valid_at), the one rule of every bitemporal read: the segment holds
  // in belief time and in validity time (half-open; open ends are null). Who wins was decided
  // when the timeline was written (graph_memory/temporal); candidates compete only in the
  // reads that ask for them.
  AND s.view IN CASE WHEN $include_candidates THEN ['both', 'all'] ELSE ['both', 'active'] END
  AND s.sys_from <= $as_of AND (s.sys_to IS NULL OR $as_of < s.sys_to)
  AND (s.valid_from IS NULL OR s.valid_from <= $valid_at)
  AND (s.valid_to IS NULL OR $valid_at < s.valid_to)
