-- The audit log's identity, fixed when the log is created: its checkpoint origin, which is also the signed
-- note's key name and so part of the key id. One row, written once (api/audit/store.ts: AUDIT_ORIGIN, else
-- the origin of the newest checkpoint of a log that predates this table, else one derived from BASE_URL);
-- a later BASE_URL changes nothing. Triggers refuse UPDATE and DELETE, like the rest of the log.
CREATE TABLE audit_log_meta (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  origin     TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TRIGGER audit_log_meta_no_update BEFORE UPDATE ON audit_log_meta
BEGIN SELECT RAISE(ABORT, 'the audit log origin is fixed'); END;
CREATE TRIGGER audit_log_meta_no_delete BEFORE DELETE ON audit_log_meta
BEGIN SELECT RAISE(ABORT, 'the audit log origin is fixed'); END;
