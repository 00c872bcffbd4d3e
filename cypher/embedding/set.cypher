// params: model, dimensions
// returns: model
MERGE (m:EmbeddingModel {id: 'current'})
SET m.model = $model, m.dimensions = $dimensions, m.caption = $model
RETURN m.model AS model
