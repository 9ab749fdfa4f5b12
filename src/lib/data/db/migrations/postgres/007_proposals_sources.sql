-- PostgreSQL twin of ../007_proposals_sources.sql.
-- Proposals and sources, beyond 006: when and by whom an accepted proposal was applied and what applying
-- changed; listing indexes; and pasted-text sources deduplicated by the hash of their text.

ALTER TABLE proposals ADD COLUMN applied_at TEXT;
ALTER TABLE proposals ADD COLUMN applied_by TEXT REFERENCES users (id);
ALTER TABLE proposals ADD COLUMN apply_result TEXT;          -- JSON: {content_changed, files, note}
CREATE INDEX proposals_pending ON proposals (status, confidence DESC, created_at DESC);
CREATE INDEX proposals_decided ON proposals (decided_at);
CREATE INDEX proposals_created ON proposals (created_at);
CREATE INDEX proposal_flags_user ON proposal_flags (user_id);

ALTER TABLE sources ADD COLUMN text_sha256 TEXT;             -- pasted text: the same text twice is a duplicate
CREATE UNIQUE INDEX sources_text_sha256 ON sources (text_sha256) WHERE type = 'text';
CREATE INDEX sources_created ON sources (created_at);
