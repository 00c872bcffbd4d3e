  // After the page cursor (newest recorded first; the segment carries its version's
  // recorded_at so a listing pages on the index before it reads a version).
  AND ($after_recorded IS NULL OR s.recorded_at < $after_recorded
       OR (s.recorded_at = $after_recorded AND s.fact_id < $after_id))
