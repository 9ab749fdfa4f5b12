-- Browser sessions a person can see and end (issue 39, item 15): the browser each was opened in (its
-- User-Agent, shown on the account page as the device), and the identity provider's ID token from that
-- sign-in, sent back as id_token_hint when the session signs out so the provider's own session ends too.
-- last_seen_at (already there) is now kept up to date, for the list and for SESSION_IDLE_HOURS.
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
ALTER TABLE sessions ADD COLUMN id_token TEXT;
