-- The audit log: an append-only, sequence-numbered event table, the stored Merkle subtree hashes over it
-- (RFC 9162), and signed checkpoints. Triggers refuse UPDATE and DELETE on all three, so not even the
-- service's own code can rewrite history.

CREATE TABLE audit_events (
  seq           INTEGER PRIMARY KEY,         -- 1, 2, 3, … without gaps; leaf index is seq - 1
  kind          TEXT NOT NULL,               -- e.g. auth.sign_in, comment.create
  subject_type  TEXT NOT NULL,
  subject_id    TEXT NOT NULL,
  actor         TEXT NOT NULL,               -- public: an opaque pseudonym, or 'system' / 'pipeline'
  created_at    TEXT NOT NULL,
  entry         TEXT NOT NULL,               -- canonical JSON of the event: the Merkle leaf data
  actor_user_id TEXT                         -- internal only, never published
) STRICT;
CREATE INDEX audit_events_kind ON audit_events (kind, seq);
CREATE INDEX audit_events_subject ON audit_events (subject_type, subject_id, seq);

CREATE TABLE audit_tree (
  level INTEGER NOT NULL,                    -- 0: leaf hashes; level L: complete subtrees of 2^L leaves
  idx   INTEGER NOT NULL,
  hash  BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE audit_checkpoints (
  tree_size  INTEGER PRIMARY KEY,
  root_hash  BLOB NOT NULL,
  note       TEXT NOT NULL,                  -- the C2SP signed note, verbatim
  created_at TEXT NOT NULL
) STRICT;

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_tree_no_update BEFORE UPDATE ON audit_tree
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_tree_no_delete BEFORE DELETE ON audit_tree
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
