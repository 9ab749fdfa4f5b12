-- Personal knowledge: each person's connection to their own git-hosted note store, and the connect flows
-- in progress. The host's tokens and the PKCE verifiers are AES-256-GCM ciphertexts (key in
-- DATA_DIR/keys/personal-knowledge.key); the notes themselves live only in git, never in this database.

CREATE TABLE pk_connections (
  user_id          TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  mode             TEXT NOT NULL CHECK (mode IN ('remote', 'embedded')),
  host             TEXT NOT NULL,                 -- display name, e.g. github.com, or 'this server'
  repository       TEXT NOT NULL,                 -- clone URL (remote) or the bare repository's path (embedded)
  branch           TEXT NOT NULL,
  token_enc        BLOB,                          -- remote only: encrypted JSON {access_token, refresh_token}
  token_key_id     TEXT,                          -- which key encrypted it (a changed key means: reconnect)
  token_expires_at TEXT,
  scope            TEXT,
  connected_at     TEXT NOT NULL,
  -- Sync bookkeeping, operational rather than user acts (see docs/decisions.md: not audited).
  status           TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'error', 'reauthorization_required')),
  last_sync_at     TEXT,
  last_error       TEXT,
  last_error_kind  TEXT,
  last_error_at    TEXT
) STRICT;

-- Between GET /api/auth/vcs/begin and the callback: bound to the person and the browser session that
-- started it, single-use, ten minutes.
CREATE TABLE pk_connect_flows (
  state_hash       BLOB PRIMARY KEY,
  user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id       TEXT NOT NULL,                 -- the session credential id (a prefix of its hash)
  mode             TEXT NOT NULL CHECK (mode IN ('remote', 'embedded')),
  verifier_enc     BLOB NOT NULL,                 -- the PKCE code_verifier, encrypted
  redirect_uri     TEXT NOT NULL,
  local_code_hash  BLOB,                          -- embedded mode: SHA-256 of the code our own authorize step issued
  created_at       TEXT NOT NULL,
  expires_at       TEXT NOT NULL
) STRICT;
CREATE INDEX pk_connect_flows_expiry ON pk_connect_flows (expires_at);
