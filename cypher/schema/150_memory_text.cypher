// One full-text index over facts, episodes, memos and procedures instead of one per kind:
// at commit a transaction pays a Lucene update for every text index it touched (~2.3-4 ms
// each, whatever the number of nodes: measured on a micro-bench, three indexes of two nodes
// 24 ms against one index of six 16 ms), and an ingested session writes three kinds. Each
// search names its kind by the in-index term ft_kind (search/_kind), so its top k are of
// that kind as before. Memories written before get the term here.
MATCH (n:Fact) WHERE n.ft_kind IS NULL
CALL (n) { SET n.ft_kind = 'fact' } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Episode) WHERE n.ft_kind IS NULL
CALL (n) { SET n.ft_kind = 'episode' } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Memo) WHERE n.ft_kind IS NULL
CALL (n) { SET n.ft_kind = 'memo' } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Procedure) WHERE n.ft_kind IS NULL
CALL (n) { SET n.ft_kind = 'procedure' } IN TRANSACTIONS OF 10000 ROWS;
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Fact|Episode|Memo|Procedure) ON EACH [n.text, n.ft_scope, n.ft_kind] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
DROP INDEX fact_text IF EXISTS;
DROP INDEX episode_text IF EXISTS;
DROP INDEX memo_text IF EXISTS;
DROP INDEX procedure_text IF EXISTS
