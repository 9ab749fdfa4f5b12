-- PostgreSQL twin of ../009_sources_search.sql, where SQLite has an FTS5 table.
-- A full-text index over added sources, so POST /api/sources/knowledge finds the few rows that mention a
-- topic without reading every stored text (up to SOURCE_MAX_BYTES each). It holds the title and the first
-- 64 KiB of the text ("head"): what a draft quotes from a source comes from there, and each lookup reads a
-- bounded number of bytes. Triggers keep it in step with `sources`; `id` ties a row back to its source, and
-- its foreign key removes the row with the source (SQLite's sources_fts_delete trigger).
--
-- FTS5's `unicode61 remove_diacritics 2` tokenizer becomes the 'simple' text-search configuration (lower
-- case, no stemming, no stop words) over unaccent(): "Čas" and "cas" index alike. api/sources/word-search.ts
-- queries it with to_tsquery('simple', unaccent(…)), ranked by ts_rank.
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE TABLE sources_fts (
  id    TEXT PRIMARY KEY REFERENCES sources (id) ON DELETE CASCADE,
  title TEXT,
  head  TEXT,
  tsv   tsvector
);
CREATE INDEX sources_fts_tsv ON sources_fts USING GIN (tsv);

-- unaccent() is not IMMUTABLE, so tsv cannot be a generated column: a trigger computes it from whatever
-- writes a row. The function keeps the search_path of this migration, so it finds unaccent() whatever
-- search_path the writing session has.
CREATE FUNCTION sources_fts_tsv() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  NEW.tsv := to_tsvector('simple', unaccent(coalesce(NEW.title, '') || ' ' || coalesce(NEW.head, '')));
  RETURN NEW;
END
$$;
CREATE TRIGGER sources_fts_tsv BEFORE INSERT OR UPDATE ON sources_fts
  FOR EACH ROW EXECUTE FUNCTION sources_fts_tsv();

INSERT INTO sources_fts (id, title, head) SELECT id, title, substr(text, 1, 65536) FROM sources;

CREATE FUNCTION sources_fts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM sources_fts WHERE id = OLD.id;
  END IF;
  INSERT INTO sources_fts (id, title, head) VALUES (NEW.id, NEW.title, substr(NEW.text, 1, 65536));
  RETURN NULL;
END
$$;
CREATE TRIGGER sources_fts_insert AFTER INSERT ON sources
  FOR EACH ROW EXECUTE FUNCTION sources_fts_sync();
CREATE TRIGGER sources_fts_update AFTER UPDATE OF title, text ON sources
  FOR EACH ROW EXECUTE FUNCTION sources_fts_sync();
