-- The posts trigger of 012 told the listening instances of every change to a post, drafts included, and
-- each instance then re-read and re-embedded every published post. Now it speaks only of posts the public
-- sees (published and not deleted) before or after the change, with the post's id as the payload, and a
-- listener updates its live index for that post alone (api/search/posts.ts, refreshPublishedPosts).
CREATE OR REPLACE FUNCTION kb_posts_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (TG_OP <> 'INSERT' AND OLD.status = 'published' AND OLD.deleted_at IS NULL)
     OR (TG_OP <> 'DELETE' AND NEW.status = 'published' AND NEW.deleted_at IS NULL) THEN
    PERFORM pg_notify('kb_posts', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  END IF;
  RETURN NULL;
END $$;
