// Each episode's verdict on @node as told by $as_of (null: every verdict told): one row per
// evidencing episode (`e`, and `r`, its latest EVIDENCED_BY edge by then), or one row of
// nulls when none. An episode is one piece of evidence and a verdict told again replaces it
// from then on (procedure/add_evidence adds an edge, never rewrites one), so a read as of a
// moment between two tellings counts the first. Edges from before verdicts were stamped
// count from the procedure's creation. Shared by the recount (procedure/recompute, all
// told), the as-of listing (procedure/list) and recall's provenance (recall/hydrate).
OPTIONAL CALL (@node) {
  MATCH (@node)-[v:EVIDENCED_BY]->(e:Episode)
  WHERE $as_of IS NULL OR coalesce(v.at, @node.created_at) <= $as_of
  WITH e, v
  ORDER BY coalesce(v.at, @node.created_at) DESC
  RETURN e, head(collect(v)) AS r
}
