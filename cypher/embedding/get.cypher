// params:
// returns: model, dimensions
MATCH (m:EmbeddingModel {id: 'current'})
RETURN m.model AS model, m.dimensions AS dimensions
