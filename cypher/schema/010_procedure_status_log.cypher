// Procedures gain a status log (when each status began), so procedures(asOf) and recall(asOf)
// serve what was served then. Versions written before it start their log with today's status.
MATCH (p:Procedure) WHERE p.status_log IS NULL AND p.status IS NOT NULL SET p.status_log_at = [coalesce(p.created_at, p.updated_at, datetime())], p.status_log = [p.status];
