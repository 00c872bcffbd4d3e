// params: model, dimensions
// returns: model
// Recorded by `migrate` on a fresh store, and by a re-embedding once every vector is switched
// (which also ends the switch).
MERGE (m:EmbeddingModel {id: 'current'})
SET m.model = $model, m.dimensions = $dimensions, m.caption = $model
REMOVE m.switching_to
RETURN m.model AS model
