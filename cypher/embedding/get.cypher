// params:
// returns: model, dimensions, switching_to
// The embedder the store's vectors were made with; switching_to names the one a re-embedding
// is switching to while its switch runs (graph_memory/services/store/reembed.py).
MATCH (m:EmbeddingModel {id: 'current'})
RETURN m.model AS model, m.dimensions AS dimensions, m.switching_to AS switching_to
