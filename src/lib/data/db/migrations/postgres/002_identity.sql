-- PostgreSQL twin of ../002_identity.sql (same tables, columns, keys and index names; see that file).
-- Identity: users and roles, browser sessions, API keys, the OAuth 2.1 authorization server's clients,
-- grants, codes and tokens, device-flow requests, and the embedded identity provider's own accounts.
-- Every secret is stored as SHA-256 of a high-entropy value; clear secrets never reach the database.

-- SQLite's `COLLATE NOCASE` e-mail columns become CITEXT: `email = ?` and their UNIQUE stay case-insensitive.
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE users (
  id            TEXT PRIMARY KEY,                    -- usr_…, public and opaque
  email         CITEXT NOT NULL UNIQUE,
  display_name  TEXT NOT NULL,
  handle        TEXT NOT NULL UNIQUE,                -- for @mentions
  bio           TEXT NOT NULL DEFAULT '',
  role          TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator', 'admin')),
  idp_issuer    TEXT NOT NULL,
  idp_subject   TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  last_login_at TEXT,
  UNIQUE (idp_issuer, idp_subject)
);

CREATE TABLE sessions (
  id_hash      BYTEA PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  revoked_at   TEXT
);
CREATE INDEX sessions_user ON sessions (user_id);

-- OpenID Connect relying-party state between /api/auth/idp/login and /api/auth/idp/callback.
CREATE TABLE login_flows (
  state_hash     BYTEA PRIMARY KEY,
  code_verifier  TEXT NOT NULL,
  nonce          TEXT NOT NULL,
  next           TEXT,
  next_user_code TEXT,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL
);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,                     -- key_…
  user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  secret_hash  BYTEA NOT NULL UNIQUE,
  hint         TEXT NOT NULL,                        -- prefix and last 4 characters, for recognising a key
  source       TEXT NOT NULL DEFAULT 'account' CHECK (source IN ('account', 'device')),
  created_at   TEXT NOT NULL,
  last_used_at TEXT,
  expires_at   TEXT,
  revoked_at   TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE oauth_clients (
  client_id                  TEXT PRIMARY KEY,
  secret_hash                BYTEA,                  -- confidential clients only
  client_name                TEXT NOT NULL,
  redirect_uris              TEXT NOT NULL,          -- JSON array, matched exactly
  token_endpoint_auth_method TEXT NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic')),
  metadata                   TEXT NOT NULL,          -- the registered metadata, JSON
  created_at                 TEXT NOT NULL
);

-- A grant is one user's consent to one client; codes and tokens hang off it, so revoking the grant
-- (user action, refresh-token reuse, code replay) revokes the whole family at once.
CREATE TABLE oauth_grants (
  id             TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id      TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  scope          TEXT NOT NULL,
  resource       TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  revoked_at     TEXT,
  revoked_reason TEXT
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, client_id);

CREATE TABLE oauth_codes (
  code_hash      BYTEA PRIMARY KEY,
  grant_id       TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scope          TEXT NOT NULL,
  resource       TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  used_at        TEXT
);

CREATE TABLE oauth_tokens (
  token_hash BYTEA PRIMARY KEY,
  grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  scope      TEXT NOT NULL,
  resource   TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at    TEXT,                                   -- refresh tokens: when rotated
  revoked_at TEXT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

CREATE TABLE device_requests (
  device_code_hash BYTEA PRIMARY KEY,
  user_code        TEXT NOT NULL UNIQUE,
  client_name      TEXT NOT NULL,
  client_host      TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
  user_id          TEXT REFERENCES users (id) ON DELETE CASCADE,
  api_key_id       TEXT REFERENCES api_keys (id) ON DELETE SET NULL,
  sandbox          BIGINT NOT NULL DEFAULT 0,        -- started through the GET alias: 1-hour key
  interval         BIGINT NOT NULL,
  created_at       TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  last_poll_at     TEXT,
  decided_at       TEXT
);

-- The embedded identity provider (dev mode) keeps its accounts apart from ours, as an external one would.
CREATE TABLE idp_accounts (
  sub        TEXT PRIMARY KEY,
  email      CITEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
