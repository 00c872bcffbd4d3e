// Full-text indexes with the English analyzer (stemming, stop words): "refunds" finds
// "refund". Recreated once; the hex ft_scope tokens analyse identically on both sides.
DROP INDEX fact_text IF EXISTS;
DROP INDEX episode_text IF EXISTS;
DROP INDEX procedure_text IF EXISTS;
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.ft_scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX episode_text IF NOT EXISTS FOR (e:Episode) ON EACH [e.text, e.ft_scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX procedure_text IF NOT EXISTS FOR (p:Procedure) ON EACH [p.text, p.ft_scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
