-- PostgreSQL twin of ../011_device_oauth.sql.
-- The device flow can end in OAuth tokens instead of an API key (issue 16, item 8: one login for the REST
-- API, /mcp and chat). A request that asked for them keeps the scope it asked for and, when it named a
-- registered client, that client; its redemption records the grant it created.
ALTER TABLE device_requests ADD COLUMN oauth_scope TEXT;
ALTER TABLE device_requests ADD COLUMN oauth_client_id TEXT;
ALTER TABLE device_requests ADD COLUMN grant_id TEXT REFERENCES oauth_grants (id) ON DELETE SET NULL;
