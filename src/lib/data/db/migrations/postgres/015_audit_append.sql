-- The audit append in one round trip (issue 40). Every write transaction appends its event last, holding
-- the cross-instance write lock from here to its commit; doing the append's reads and inserts here instead
-- of from the application (four round trips) keeps that critical section to this call and the commit.
--
-- Same result as the application's append on SQLite (src/lib/data/audit/store.ts): seq = size + 1, the
-- entry is the canonical JSON the application made with the seq left out (`p_entry_head` and
-- `p_entry_tail` go either side of it), the leaf hash SHA-256(0x00 || entry) and the hash of each complete
-- subtree the leaf closes, SHA-256(0x01 || left || right) (RFC 9162). VOLATILE: under READ COMMITTED each
-- statement here sees every transaction committed before it, so the reads after the lock see the previous
-- holder's append.
CREATE FUNCTION kb_audit_append(
  p_kind TEXT, p_subject_type TEXT, p_subject_id TEXT, p_actor TEXT, p_created_at TEXT, p_actor_user_id TEXT,
  p_entry_head TEXT, p_entry_tail TEXT
) RETURNS TABLE (seq BIGINT, checkpointed BIGINT, entry_bytes INTEGER)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n BIGINT;
  cp BIGINT;
  e TEXT;
  h BYTEA;
  lft BYTEA;
  lvl BIGINT := 0;
  i BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(1801, 1);
  SELECT COALESCE(MAX(a.seq), 0) INTO n FROM audit_events a;
  SELECT COALESCE(MAX(c.tree_size), 0) INTO cp FROM audit_checkpoints c;
  e := p_entry_head || (n + 1)::TEXT || p_entry_tail;
  INSERT INTO audit_events (seq, kind, subject_type, subject_id, actor, created_at, entry, actor_user_id)
    VALUES (n + 1, p_kind, p_subject_type, p_subject_id, p_actor, p_created_at, e, p_actor_user_id);
  h := sha256('\x00'::BYTEA || convert_to(e, 'UTF8'));
  i := n;
  INSERT INTO audit_tree (level, idx, hash) VALUES (0, i, h);
  WHILE i % 2 = 1 LOOP
    SELECT t.hash INTO STRICT lft FROM audit_tree t WHERE t.level = lvl AND t.idx = i - 1;
    h := sha256('\x01'::BYTEA || lft || h);
    lvl := lvl + 1;
    i := i / 2;
    INSERT INTO audit_tree (level, idx, hash) VALUES (lvl, i, h);
  END LOOP;
  RETURN QUERY SELECT n + 1, cp, octet_length(e);
END
$$;
