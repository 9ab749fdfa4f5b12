// Sources people added, in the `sources` table: a fetched web page or a pasted text. Each insert commits
// with its audit event; a page whose canonical URL, or a text whose hash, is already there is a duplicate.
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import { randomId } from '../secrets.ts';

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

/** The page (same canonical URL) or text (same hash) is already a source: the API answers 409. */
export class DuplicateSource extends Error {
  readonly existing: SourceRow;
  constructor(row: SourceRow) {
    super(`This ${row.type === 'text' ? 'text' : 'page'} was already added as ${row.id}${row.canonical_url ? ` (${row.canonical_url})` : ''}`);
    this.existing = row;
  }
}

export function createSourceStore(db: Db, audit: AuditLog, now: () => Date = () => new Date()) {
  const byCanonical = db.prepare<[string], SourceRow>('SELECT * FROM sources WHERE canonical_url = ?');
  const byTextHash = db.prepare<[string], SourceRow>("SELECT * FROM sources WHERE type = 'text' AND text_sha256 = ?");
  const byId = db.prepare<[string], SourceRow>('SELECT * FROM sources WHERE id = ?');

  return {
    get: (id: string) => byId.get(id),
    findByCanonical: (url: string) => byCanonical.get(url),

    /** Refuses (DuplicateSource) when the canonical URL is already a source. */
    async assertNewUrl(canonical: string): Promise<void> {
      const row = await byCanonical.get(canonical);
      if (row) throw new DuplicateSource(row);
    },

    async add(input: { type: 'web_page' | 'text'; url: string | null; canonicalUrl: string | null; title: string; text: string; addedBy: string }): Promise<SourceRow> {
      // Checked inside the transaction, under the write lock from its start, so two concurrent adds of one
      // page or text (on any instance) cannot both pass.
      return db.transaction(async () => {
        const textHash = sha256(input.text);
        const existing = await (input.canonicalUrl ? byCanonical.get(input.canonicalUrl) : byTextHash.get(textHash));
        if (existing) throw new DuplicateSource(existing);
        const row = (await db
          .prepare<unknown[], SourceRow>('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at, text_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *')
          .get(randomId('src'), input.type, input.url, input.canonicalUrl, input.title, input.text, input.addedBy, now().toISOString(), textHash))!;
        const id = row.id;
        await audit.append({
          kind: 'source.add',
          subjectType: 'source',
          subjectId: id,
          actor: { userId: input.addedBy },
          data: { type: input.type, canonical_url: input.canonicalUrl, text_sha256: textHash },
        });
        return row;
      }, { lock: true });
    },
  };
}

export type SourceStore = ReturnType<typeof createSourceStore>;
