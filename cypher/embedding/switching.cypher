// params: model
// returns: model
// A re-embedding's switch begins: every service process refuses vector work until it ends
// (services/embedding_config.StoreBoundEmbedder), so no vector of either model lands while
// the live ones are being replaced.
MATCH (m:EmbeddingModel {id: 'current'})
SET m.switching_to = $model
RETURN m.model AS model
