// Scoped session tokens (services/access/session_tokens.py): looked up by digest on every request
// not served from the auth cache, revoked and forgotten by (tenant, id) and (tenant, user).
CREATE CONSTRAINT session_token_hash IF NOT EXISTS FOR (t:SessionToken) REQUIRE t.hash IS UNIQUE;
CREATE CONSTRAINT session_token_id IF NOT EXISTS FOR (t:SessionToken) REQUIRE t.id IS UNIQUE;
CREATE INDEX session_token_user IF NOT EXISTS FOR (t:SessionToken) ON (t.tenant, t.user_id);
CREATE INDEX apikey_id IF NOT EXISTS FOR (k:ApiKey) ON (k.id);
