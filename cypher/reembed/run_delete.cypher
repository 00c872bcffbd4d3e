// params:
// returns: deleted
// The run is over (finished or abandoned).
MATCH (r:ReembedRun {id: 'current'})
DELETE r
RETURN count(*) AS deleted
