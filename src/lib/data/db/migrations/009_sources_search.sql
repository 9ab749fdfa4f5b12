-- A full-text index over added sources, so POST /api/sources/knowledge finds the few rows that mention a
-- topic without reading every stored text (up to SOURCE_MAX_BYTES each). It holds the title and the first
-- 64 KiB of the text ("head"): what a draft quotes from a source comes from there, and each lookup reads a
-- bounded number of bytes. Triggers keep it in step with `sources`; `id` ties a row back to its source
-- (rowids of `sources` are not stable across VACUUM, its key is a TEXT id).
CREATE VIRTUAL TABLE sources_fts USING fts5(id UNINDEXED, title, head, tokenize = 'unicode61 remove_diacritics 2');

INSERT INTO sources_fts (id, title, head) SELECT id, title, substr(text, 1, 65536) FROM sources;

CREATE TRIGGER sources_fts_insert AFTER INSERT ON sources BEGIN
  INSERT INTO sources_fts (id, title, head) VALUES (new.id, new.title, substr(new.text, 1, 65536));
END;

CREATE TRIGGER sources_fts_update AFTER UPDATE OF title, text ON sources BEGIN
  DELETE FROM sources_fts WHERE id = old.id;
  INSERT INTO sources_fts (id, title, head) VALUES (new.id, new.title, substr(new.text, 1, 65536));
END;

CREATE TRIGGER sources_fts_delete AFTER DELETE ON sources BEGIN
  DELETE FROM sources_fts WHERE id = old.id;
END;
