// The kind of memory @node is, as a term of the one full-text index over every kind
// (memory_text, schema 150): a search of one kind requires it (`+ft_kind:fact^0`, scoring
// nothing), so a transaction that writes several kinds (an ingested session: an episode,
// facts and memos) updates one Lucene index at its commit instead of one per kind (each
// costs a few ms there, measured). Set by every writer of a memory and by an import; for
// any other node it is null (no property).
SET @node.ft_kind = CASE WHEN @node:Fact THEN 'fact' WHEN @node:Episode THEN 'episode'
                         WHEN @node:Memo THEN 'memo' WHEN @node:Procedure THEN 'procedure' END
