// Storage of the audit log: events, stored subtree hashes, checkpoints and the log's fixed origin
// (migrations 001_audit.sql, 010_audit_log_origin.sql). Appends run inside the caller's transaction, so a
// write and its event commit together.
//
// The Merkle functions (merkle.ts) are pure and read hashes synchronously. Which hashes a computation
// reads depends only on indexes, never on the hashes' values, so `withHashes` runs it once with a
// recording reader to learn the set, fetches that set in one query, and runs it again on the answers:
// an append or a proof costs one round trip for its hashes, not one per hash.
import type { Db } from '../db/index.ts';
import { hashesForAppend, leafHash, type Hash, type HashReader } from './merkle.ts';

/** Entry bundles (C2SP tlog-tiles) prefix each entry with a big-endian uint16 length. */
export const MAX_ENTRY_BYTES = 0xffff;

export interface StoredEvent {
  seq: number;
  kind: string;
  subject_type: string;
  subject_id: string;
  actor: string;
  created_at: string;
  entry: string;
}

export interface StoredCheckpoint {
  tree_size: number;
  root_hash: Buffer;
  note: string;
  created_at: string;
}

export interface EventFilter {
  afterSeq: number;
  limit: number;
  kind?: string;
  subjectType?: string;
  subjectId?: string;
}

const ZERO: Hash = Buffer.alloc(32);
const key = (level: number, index: number) => `${level}:${index}`;

/** The (level, index) pairs `compute` reads, found by running it on placeholder hashes. */
function hashesRead<T>(compute: (read: HashReader) => T): [number, number][] {
  const seen = new Map<string, [number, number]>();
  compute((level, index) => {
    seen.set(key(level, index), [level, index]);
    return ZERO;
  });
  return [...seen.values()];
}

/** The (level, index) of each perfect subtree in the tree of `size` leaves, left to right. */
function perfectSubtrees(size: number): [number, number][] {
  const out: [number, number][] = [];
  let offset = 0;
  for (let level = 31 - Math.clz32(size); level >= 0; level--) {
    if (size & (1 << level)) {
      out.push([level, offset >> level]);
      offset += 1 << level;
    }
  }
  return out;
}

/**
 * `withHashes(compute, known?)`: runs a Merkle computation over stored hashes, fetched in one round trip
 * (those in `known` are not fetched).
 */
function merkleReads(db: Db) {
  /** The stored hashes at `pairs`, in one query. */
  async function fetchHashes(pairs: [number, number][]): Promise<Map<string, Hash>> {
    const found = new Map<string, Hash>();
    if (pairs.length === 0) return found;
    const byLevel = new Map<number, number[]>();
    for (const [level, index] of pairs) byLevel.set(level, [...(byLevel.get(level) ?? []), index]);
    const where = [...byLevel.values()].map((idx) => `(level = ? AND idx IN (${idx.map(() => '?').join(', ')}))`).join(' OR ');
    const params = [...byLevel].flatMap(([level, idx]) => [level, ...idx]);
    const rows = await db.prepare<unknown[], { level: number; idx: number; hash: Buffer }>(`SELECT level, idx, hash FROM audit_tree WHERE ${where}`).all(...params);
    for (const r of rows) found.set(key(r.level, r.idx), r.hash);
    return found;
  }

  return async function withHashes<T>(compute: (read: HashReader) => T, known?: Map<string, Hash>): Promise<T> {
    const wanted = hashesRead(compute);
    const missing = known ? wanted.filter(([l, i]) => !known.has(key(l, i))) : wanted;
    const fetched = await fetchHashes(missing);
    // A missing hash is an error: the tree is corrupt.
    return compute((level, index) => {
      const h = known?.get(key(level, index)) ?? fetched.get(key(level, index));
      if (!h) throw new Error(`audit tree is missing the hash at level ${level} index ${index}`);
      return h;
    });
  };
}

type NewEvent = Omit<StoredEvent, 'seq' | 'entry'> & { actor_user_id: string | null };

/**
 * PostgreSQL: the append as one round trip (kb_audit_append, migration 015), which takes the write lock
 * and does what the application's append does on SQLite. The entry is made with a placeholder seq and
 * split around it: the top-level "seq" is the last `"seq":` in canonical JSON (keys sorted; after it only
 * subject_id and subject_type, strings, where a quote is always escaped).
 */
function databaseAppender(db: Db) {
  const appendStmt = db.prepare<unknown[], { seq: number; checkpointed: number }>('SELECT seq, checkpointed FROM kb_audit_append(?, ?, ?, ?, ?, ?, ?, ?)');
  return async (e: NewEvent, makeEntry: (seq: number) => string): Promise<{ seq: number; checkpointed: number }> => {
    const marker = `"seq":${Number.MAX_SAFE_INTEGER}`;
    const full = makeEntry(Number.MAX_SAFE_INTEGER);
    const at = full.lastIndexOf(marker);
    if (at < 0) throw new Error('audit entry has no seq');
    // The placeholder has 16 digits, at least as many as any real seq: the real entry is no longer.
    if (Buffer.byteLength(full, 'utf8') > MAX_ENTRY_BYTES) throw new Error(`audit entry exceeds ${MAX_ENTRY_BYTES} bytes`);
    const head = full.slice(0, at + '"seq":'.length);
    const tail = full.slice(at + marker.length);
    return (await appendStmt.get(e.kind, e.subject_type, e.subject_id, e.actor, e.created_at, e.actor_user_id, head, tail))!;
  };
}

/** Prepared statements over one database. */
export function auditStore(db: Db) {
  const sizeStmt = db.prepare<[], number>('SELECT COALESCE(MAX(seq), 0) FROM audit_events').pluck();
  // The log's size, its newest checkpoint's size and its last leaf hash, in one round trip.
  const headStmt = db.prepare<[], { size: number; checkpointed: number; last_leaf: Buffer | null }>(
    `SELECT s.size, (SELECT COALESCE(MAX(tree_size), 0) FROM audit_checkpoints) AS checkpointed,
       (SELECT hash FROM audit_tree WHERE level = 0 AND idx = s.size - 1) AS last_leaf
     FROM (SELECT COALESCE(MAX(seq), 0) AS size FROM audit_events) s`,
  );
  const insertEvent = db.prepare(
    'INSERT INTO audit_events (seq, kind, subject_type, subject_id, actor, created_at, entry, actor_user_id) VALUES (@seq, @kind, @subject_type, @subject_id, @actor, @created_at, @entry, @actor_user_id)',
  );
  const lastCheckpointStmt = db.prepare<[], StoredCheckpoint>('SELECT * FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1');
  const insertCheckpoint = db.prepare('INSERT INTO audit_checkpoints (tree_size, root_hash, note, created_at) VALUES (?, ?, ?, ?)');
  const checkpointsStmt = db.prepare<[number, number], StoredCheckpoint>('SELECT * FROM audit_checkpoints WHERE tree_size > ? ORDER BY tree_size LIMIT ?');
  const eventStmt = db.prepare<[number], StoredEvent>('SELECT seq, kind, subject_type, subject_id, actor, created_at, entry FROM audit_events WHERE seq = ?');
  const hashRangeStmt = db.prepare<[number, number, number], Buffer>('SELECT hash FROM audit_tree WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx').pluck();
  const entryRangeStmt = db.prepare<[number, number], string>('SELECT entry FROM audit_events WHERE seq >= ? AND seq < ? ORDER BY seq').pluck();
  const originStmt = db.prepare<[], string>('SELECT origin FROM audit_log_meta WHERE id = 1').pluck();
  const insertOrigin = db.prepare('INSERT INTO audit_log_meta (id, origin, created_at) VALUES (1, ?, ?)');
  const newestNoteStmt = db.prepare<[], string>('SELECT note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1').pluck();

  const withHashes = merkleReads(db);

  /**
   * The right edge of the tree this process last appended to: the hashes its next append reads. Valid
   * while the log still ends with the leaf it appended — not when another instance has appended since, nor
   * when that append's transaction rolled back (the leaf at that index is then another one, or none).
   */
  let edge: { size: number; lastLeaf: Hash; hashes: Map<string, Hash> } | null = null;

  const appendInDatabase = databaseAppender(db);

  async function insertHashes(hashes: { level: number; index: number; hash: Hash }[]): Promise<void> {
    const values = hashes.map(() => '(?, ?, ?)').join(', ');
    await db.prepare(`INSERT INTO audit_tree (level, idx, hash) VALUES ${values}`).run(...hashes.flatMap((h) => [h.level, h.index, h.hash]));
  }

  return {
    withHashes,
    size: async (): Promise<number> => (await sizeStmt.get())!,

    /**
     * Inserts the event as the next seq and its Merkle hashes. Must run inside a transaction: it takes
     * the write lock there (held to the commit), so seqs are gapless and in commit order across every
     * process on the database. Returns the log's size and its newest checkpoint's size after the append.
     */
    async append(e: NewEvent, makeEntry: (seq: number) => string): Promise<{ seq: number; checkpointed: number }> {
      if (!db.inTransaction) throw new Error('appendAuditEvent must run inside the write transaction');
      if (db.dialect === 'postgres') return appendInDatabase(e, makeEntry);
      await db.lockWrites();
      const head = (await headStmt.get())!;
      const seq = head.size + 1;
      const entry = makeEntry(seq);
      if (Buffer.byteLength(entry, 'utf8') > MAX_ENTRY_BYTES) throw new Error(`audit entry of seq ${seq} exceeds ${MAX_ENTRY_BYTES} bytes`);
      const leaf = leafHash(entry);
      const known = edge && edge.size === head.size && head.last_leaf && edge.lastLeaf.equals(head.last_leaf) ? edge.hashes : undefined;
      const read = new Map<string, Hash>();
      const hashes = await withHashes((r) => hashesForAppend(seq - 1, leaf, (level, index) => {
        const h = r(level, index);
        read.set(key(level, index), h);
        return h;
      }), known);
      await insertEvent.run({ ...e, seq, entry });
      await insertHashes(hashes);
      // The next append reads only roots of the perfect subtrees that make up the tree of `seq` leaves:
      // keep those this append knew, read or made.
      const pool = new Map([...(known ?? []), ...read, ...hashes.map((h): [string, Hash] => [key(h.level, h.index), h.hash])]);
      const frontier = new Map<string, Hash>();
      for (const [level, index] of perfectSubtrees(seq)) {
        const h = pool.get(key(level, index));
        if (h) frontier.set(key(level, index), h);
      }
      edge = { size: seq, lastLeaf: leaf, hashes: frontier };
      return { seq, checkpointed: head.checkpointed };
    },

    event: (seq: number): Promise<StoredEvent | undefined> => eventStmt.get(seq),

    events(f: EventFilter): Promise<StoredEvent[]> {
      const where = ['seq > @afterSeq'];
      if (f.kind !== undefined) where.push('kind = @kind');
      if (f.subjectType !== undefined) where.push('subject_type = @subjectType');
      if (f.subjectId !== undefined) where.push('subject_id = @subjectId');
      return db
        .prepare<EventFilter, StoredEvent>(`SELECT seq, kind, subject_type, subject_id, actor, created_at, entry FROM audit_events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit`)
        .all(f);
    },

    /**
     * The log's origin, fixed on first use: the stored one; else, for a log made before origins were
     * stored, the origin its newest checkpoint was signed under; else `forNewLog`. Serialised by the
     * write lock, so the server and the pipeline opening one new log at once agree.
     */
    fixOrigin(forNewLog: string, createdAt: string): Promise<{ origin: string; fixedNow: boolean }> {
      return db.transaction(
        async () => {
          const stored = await originStmt.get();
          if (stored !== undefined) return { origin: stored, fixedNow: false };
          const note = await newestNoteStmt.get();
          const origin = note !== undefined ? note.slice(0, note.indexOf('\n')) : forNewLog;
          await insertOrigin.run(origin, createdAt);
          return { origin, fixedNow: true };
        },
        { lock: true },
      );
    },

    /** Stored hashes at `level`, indexes [from, from + count), in order; fewer when the tree has fewer. */
    hashRange: (level: number, from: number, count: number): Promise<Buffer[]> => hashRangeStmt.all(level, from, from + count),
    /** The entries of events [fromSeq, fromSeq + count), in seq order; fewer when the log has fewer. */
    entryRange: (fromSeq: number, count: number): Promise<string[]> => entryRangeStmt.all(fromSeq, fromSeq + count),

    lastCheckpoint: (): Promise<StoredCheckpoint | undefined> => lastCheckpointStmt.get(),
    addCheckpoint: (c: StoredCheckpoint) => insertCheckpoint.run(c.tree_size, c.root_hash, c.note, c.created_at),
    checkpoints: (afterSize: number, limit: number): Promise<StoredCheckpoint[]> => checkpointsStmt.all(afterSize, limit),
  };
}

export type AuditStore = ReturnType<typeof auditStore>;
