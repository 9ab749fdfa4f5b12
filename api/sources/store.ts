// Sources people added, in the `sources` table: a fetched web page or a pasted text. Each insert commits
// with its audit event; a page whose canonical URL, or a text whose hash, is already there is a duplicate.
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import { randomId } from '../auth/secrets.ts';
import { ApiError } from '../errors/index.ts';

export interface SourceRow {
  id: string;
  type: 'web_page' | 'text';
  url: string | null;
  canonical_url: string | null;
  title: string;
  text: string;
  added_by: string;
  created_at: string;
  text_sha256: string | null;
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function createSourceStore(db: Db, audit: AuditLog, now: () => Date = () => new Date()) {
  const byCanonical = db.prepare<[string], SourceRow>('SELECT * FROM sources WHERE canonical_url = ?');
  const byTextHash = db.prepare<[string], SourceRow>("SELECT * FROM sources WHERE type = 'text' AND text_sha256 = ?");
  const byId = db.prepare<[string], SourceRow>('SELECT * FROM sources WHERE id = ?');

  const duplicate = (row: SourceRow) =>
    new ApiError(409, `This ${row.type === 'text' ? 'text' : 'page'} was already added as ${row.id}${row.canonical_url ? ` (${row.canonical_url})` : ''}`);

  return {
    get: (id: string) => byId.get(id),
    findByCanonical: (url: string) => byCanonical.get(url),

    /** Refuses with 409 when the canonical URL is already a source. */
    assertNewUrl(canonical: string): void {
      const row = byCanonical.get(canonical);
      if (row) throw duplicate(row);
    },

    add(input: { type: 'web_page' | 'text'; url: string | null; canonicalUrl: string | null; title: string; text: string; addedBy: string }): SourceRow {
      return db.transaction(() => {
        const textHash = sha256(input.text);
        // Checked inside the write transaction, so two concurrent adds of one page cannot both pass.
        const existing = input.canonicalUrl ? byCanonical.get(input.canonicalUrl) : byTextHash.get(textHash);
        if (existing) throw duplicate(existing);
        const id = randomId('src');
        db.prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at, text_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
          id, input.type, input.url, input.canonicalUrl, input.title, input.text, input.addedBy, now().toISOString(), textHash,
        );
        audit.append({
          kind: 'source.add',
          subjectType: 'source',
          subjectId: id,
          actor: { userId: input.addedBy },
          data: { type: input.type, canonical_url: input.canonicalUrl, text_sha256: textHash },
        });
        return byId.get(id)!;
      }).immediate();
    },
  };
}

export type SourceStore = ReturnType<typeof createSourceStore>;
