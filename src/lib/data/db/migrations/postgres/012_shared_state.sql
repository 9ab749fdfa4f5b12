-- State several instances behind one origin must share (issue 17).

-- Rate-limit token buckets (api/rate-limit): one row per limiter and caller, refilled and taken in one
-- atomic upsert, so a person's limit holds across instances. `at` is epoch milliseconds.
CREATE TABLE rate_limits (
  key    TEXT PRIMARY KEY,                 -- <limiter>:<user:id | addr:address>
  tokens DOUBLE PRECISION NOT NULL,
  at     BIGINT NOT NULL,
  ok     BIGINT NOT NULL                   -- 1 when the last take was allowed
);
CREATE INDEX rate_limits_at ON rate_limits (at);

-- Failed device user_code lookups per caller (api/device/guess-guard.ts): a sliding window of rows, so
-- guessing through several instances counts as guessing through one.
CREATE TABLE guess_failures (
  key TEXT NOT NULL,
  at  BIGINT NOT NULL                      -- epoch milliseconds
);
CREATE INDEX guess_failures_key ON guess_failures (key, at);
CREATE INDEX guess_failures_at ON guess_failures (at);

-- Published posts join each instance's live search index: every change to a post tells the listening
-- instances (LISTEN kb_posts, api/search/posts.ts), which re-read the published posts. Delivered at
-- commit, so a listener never sees a post that rolled back.
CREATE FUNCTION kb_posts_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('kb_posts', COALESCE(NEW.id, OLD.id));
  RETURN NULL;
END $$;
CREATE TRIGGER posts_notify AFTER INSERT OR UPDATE OR DELETE ON posts
FOR EACH ROW EXECUTE FUNCTION kb_posts_notify();
