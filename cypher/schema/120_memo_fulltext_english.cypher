// The memos' full-text index with the English analyzer, as the facts', episodes' and
// procedures' have had since schema 006 (016 created it with the default analyzer): an event
// "We refunded the order" is found by "refund", like every other memory. Recreated once; the
// ft_scope tokens analyse identically on both sides.
DROP INDEX memo_text IF EXISTS;
CREATE FULLTEXT INDEX memo_text IF NOT EXISTS FOR (m:Memo) ON EACH [m.text, m.ft_scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
