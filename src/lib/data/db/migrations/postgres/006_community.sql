-- PostgreSQL twin of ../006_community.sql (same tables, columns, keys and index names; see that file).
-- Community: comments and reactions on any item, user posts with their essay, co-admins and votes,
-- notifications, and idempotency records of the GET-only comment path.

CREATE TABLE comments (
  id          TEXT PRIMARY KEY,                    -- cmt_…
  entity_type TEXT NOT NULL CHECK (entity_type IN ('video', 'essay', 'digest', 'knowledge', 'persona', 'post')),
  entity_id   TEXT NOT NULL,
  parent_id   TEXT REFERENCES comments (id),
  author_id   TEXT NOT NULL REFERENCES users (id),
  body        TEXT NOT NULL,
  hidden      BIGINT NOT NULL DEFAULT 0,
  hidden_by   TEXT REFERENCES users (id),
  deleted_at  TEXT,                                -- a deleted comment with replies stays as a tombstone
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX comments_entity ON comments (entity_type, entity_id, created_at);
CREATE INDEX comments_parent ON comments (parent_id);
CREATE INDEX comments_author ON comments (author_id, created_at);

CREATE TABLE comment_edits (
  comment_id TEXT NOT NULL REFERENCES comments (id),
  version    BIGINT NOT NULL,
  body       TEXT NOT NULL,                        -- the text before this edit
  edited_at  TEXT NOT NULL,
  PRIMARY KEY (comment_id, version)
);

CREATE TABLE reactions (
  comment_id TEXT NOT NULL REFERENCES comments (id),
  user_id    TEXT NOT NULL REFERENCES users (id),
  kind       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (comment_id, user_id, kind)
);

-- GET /api/comments/create: the same key from the same caller returns the first comment.
CREATE TABLE comment_idempotency (
  user_id      TEXT NOT NULL REFERENCES users (id),
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  comment_id   TEXT NOT NULL REFERENCES comments (id),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
);

CREATE TABLE posts (
  id           TEXT PRIMARY KEY,                   -- pst_…
  slug         TEXT NOT NULL UNIQUE,
  author_id    TEXT NOT NULL REFERENCES users (id),
  title        TEXT NOT NULL,
  summary      TEXT NOT NULL DEFAULT '',
  tags         TEXT NOT NULL DEFAULT '[]',         -- JSON array
  lang         TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'sl')),
  status       TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'submitted', 'published', 'rejected')),
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  submitted_at TEXT,
  published_at TEXT,
  deleted_at   TEXT
);
CREATE INDEX posts_status ON posts (status, published_at);
CREATE INDEX posts_author ON posts (author_id, created_at);

CREATE TABLE post_tags (
  post_id TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,
  PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tags_tag ON post_tags (tag);

-- The post's essay: the current text and every revision; etag = revision id of the current text.
CREATE TABLE post_essay_revisions (
  post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  revision   BIGINT NOT NULL,
  body       TEXT NOT NULL,
  author_id  TEXT NOT NULL REFERENCES users (id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (post_id, revision)
);

CREATE TABLE post_admins (
  post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id    TEXT NOT NULL REFERENCES users (id),
  granted_by TEXT NOT NULL REFERENCES users (id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (post_id, user_id)
);

CREATE TABLE post_votes (
  post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id    TEXT NOT NULL REFERENCES users (id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (post_id, user_id)
);

CREATE TABLE notifications (
  id          TEXT PRIMARY KEY,                    -- uuid
  user_id     TEXT NOT NULL REFERENCES users (id),
  kind        TEXT NOT NULL,                       -- mention, reply, post_comment, vote, co_admin, proposal_decision, system
  category    TEXT NOT NULL CHECK (category IN ('mention', 'system', 'activity')),
  title       TEXT NOT NULL,
  body        TEXT NOT NULL DEFAULT '',
  link        TEXT,
  actor_id    TEXT REFERENCES users (id),
  subject_type TEXT,
  subject_id  TEXT,
  created_at  TEXT NOT NULL,
  read_at     TEXT,
  dismissed_at TEXT
);
CREATE INDEX notifications_user ON notifications (user_id, created_at);

-- Proposals against the knowledge canon, community flags on them, and sources people add.
CREATE TABLE proposals (
  id          TEXT PRIMARY KEY,                    -- prp_…
  kind        TEXT NOT NULL CHECK (kind IN ('link_add', 'tag_correction', 'concept_stub', 'essay_promotion')),
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'applied', 'superseded')),
  title       TEXT NOT NULL,
  target_type TEXT,
  target_id   TEXT,
  payload     TEXT NOT NULL DEFAULT '{}',          -- what would change, JSON
  evidence    TEXT NOT NULL DEFAULT '{}',          -- JSON; community_flags live here
  confidence  DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (confidence >= 0 AND confidence <= 1),
  source      TEXT NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'pipeline')),
  created_by  TEXT REFERENCES users (id),
  created_at  TEXT NOT NULL,
  decided_at  TEXT,
  decided_by  TEXT REFERENCES users (id),          -- NULL when auto-rejected by flags
  decision_note TEXT,
  superseded_by TEXT REFERENCES proposals (id)
);
CREATE INDEX proposals_status ON proposals (status, confidence, created_at);

CREATE TABLE proposal_flags (
  proposal_id TEXT NOT NULL REFERENCES proposals (id),
  user_id     TEXT NOT NULL REFERENCES users (id),
  reason      TEXT,
  created_at  TEXT NOT NULL,
  -- Not in the SQLite table: there every row has an implicit rowid, and api/proposals/store.ts orders flags
  -- by `created_at, rowid` (insertion order among equal timestamps). This column lets that SQL run as written.
  rowid       BIGINT GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (proposal_id, user_id)
);

CREATE TABLE sources (
  id            TEXT PRIMARY KEY,                  -- src_…
  type          TEXT NOT NULL CHECK (type IN ('web_page', 'text')),
  url           TEXT,
  canonical_url TEXT UNIQUE,
  title         TEXT NOT NULL,
  text          TEXT NOT NULL,
  added_by      TEXT NOT NULL REFERENCES users (id),
  created_at    TEXT NOT NULL
);
