// params: tenant, close, delete, create, now
// returns: created
// One write-time step of the timeline: ends the open segments a change ended (at now),
// deletes those opened and ended by the same transaction (never believed), and adds the new
// ones, each linked to the version it lets answer.
CYPHER 25
CALL () {
  UNWIND $close AS id
  MATCH (s:Segment {id: id})
  WHERE s.tenant = $tenant
  SET s.sys_to = $now
}
CALL () {
  UNWIND $delete AS id
  MATCH (s:Segment {id: id})
  WHERE s.tenant = $tenant
  DETACH DELETE s
}
CALL () {
  UNWIND $create AS row
  MATCH (f:Fact {id: row.fact_id})
  WHERE f.tenant = $tenant
  CREATE (s:Segment {id: row.id, tenant: $tenant, scope: f.scope, subject: f.subject,
                     predicate: f.predicate, fact_id: f.id, recorded_at: f.recorded_at,
                     view: row.view})
  SET s.sys_from = datetime(row.sys_from), s.sys_to = datetime(row.sys_to),
      s.valid_from = datetime(row.valid_from), s.valid_to = datetime(row.valid_to)
  CREATE (s)-[:WINS]->(f)
}
RETURN size($create) AS created
