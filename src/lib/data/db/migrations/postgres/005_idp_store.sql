-- PostgreSQL twin of ../005_idp_store.sql.
-- Storage for the embedded OpenID provider's artifacts (sessions, interactions, codes, grants …), so they
-- survive a restart like the rest of the dev-mode state. Payloads are the provider's own JSON.
CREATE TABLE idp_store (
  model       TEXT NOT NULL,
  id          TEXT NOT NULL,
  payload     TEXT NOT NULL,
  grant_id    TEXT,
  user_code   TEXT,
  uid         TEXT,
  expires_at  BIGINT,                 -- epoch seconds
  consumed_at BIGINT,
  PRIMARY KEY (model, id)
);
CREATE INDEX idp_store_grant ON idp_store (grant_id);
CREATE INDEX idp_store_uid ON idp_store (model, uid);
CREATE INDEX idp_store_user_code ON idp_store (model, user_code);
