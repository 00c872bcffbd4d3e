// params: props
// returns: id
// Records the run's progress (step, kind, cursor, counts, lease); written in the same
// transaction as the batch it describes, so a crash never loses or repeats a recorded batch.
MERGE (r:ReembedRun {id: 'current'})
SET r += $props, r.caption = 'reembed ' + coalesce($props.model, r.model)
RETURN r.id AS id
