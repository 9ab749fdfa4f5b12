-- OAuth 2.1 server additions. Whether the authorization request named its redirect_uri: if it did, the
-- token request must repeat it (RFC 6749 §4.1.3). Indexes for revoking a grant's family and for
-- listing a user's connected clients.
ALTER TABLE oauth_codes ADD COLUMN redirect_uri_given INTEGER NOT NULL DEFAULT 1;
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
