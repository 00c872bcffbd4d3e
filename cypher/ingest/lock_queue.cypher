// params:
// returns: seq
// Serialises claims, lease renewals and completions across every worker and process: each
// runs its read-decide-write under this lock, so no two workers can both see a job free.
MERGE (q:IngestQueue {id: 'ingest'})
ON CREATE SET q.caption = 'ingest queue'
SET q.seq = coalesce(q.seq, 0) + 1
RETURN q.seq AS seq
