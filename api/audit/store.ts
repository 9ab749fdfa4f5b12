// SQLite storage of the audit log: events, stored subtree hashes, checkpoints and the log's fixed origin
// (api/db/migrations/001_audit.sql, 010_audit_log_origin.sql). Appends run inside the caller's
// transaction, so a write and its event commit together.
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

/** Prepared statements over one connection. */
export function auditStore(db: Db) {
  const hashStmt = db.prepare<[number, number], Buffer>('SELECT hash FROM audit_tree WHERE level = ? AND idx = ?').pluck();
  const sizeStmt = db.prepare<[], number>('SELECT COALESCE(MAX(seq), 0) FROM audit_events').pluck();
  const insertEvent = db.prepare(
    'INSERT INTO audit_events (seq, kind, subject_type, subject_id, actor, created_at, entry, actor_user_id) VALUES (@seq, @kind, @subject_type, @subject_id, @actor, @created_at, @entry, @actor_user_id)',
  );
  const insertHash = db.prepare('INSERT INTO audit_tree (level, idx, hash) VALUES (?, ?, ?)');
  const lastCheckpointStmt = db.prepare<[], StoredCheckpoint>('SELECT * FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1');
  const insertCheckpoint = db.prepare('INSERT INTO audit_checkpoints (tree_size, root_hash, note, created_at) VALUES (?, ?, ?, ?)');
  const checkpointsStmt = db.prepare<[number, number], StoredCheckpoint>('SELECT * FROM audit_checkpoints WHERE tree_size > ? ORDER BY tree_size LIMIT ?');
  const eventStmt = db.prepare<[number], StoredEvent>('SELECT seq, kind, subject_type, subject_id, actor, created_at, entry FROM audit_events WHERE seq = ?');
  const hashRangeStmt = db.prepare<[number, number, number], Buffer>('SELECT hash FROM audit_tree WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx').pluck();
  const entryRangeStmt = db.prepare<[number, number], string>('SELECT entry FROM audit_events WHERE seq >= ? AND seq < ? ORDER BY seq').pluck();
  const originStmt = db.prepare<[], string>('SELECT origin FROM audit_log_meta WHERE id = 1').pluck();
  const insertOrigin = db.prepare('INSERT INTO audit_log_meta (id, origin, created_at) VALUES (1, ?, ?)');
  const newestNoteStmt = db.prepare<[], string>('SELECT note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1').pluck();

  const readHash: HashReader = (level, index) => {
    const h = hashStmt.get(level, index);
    if (!h) throw new Error(`audit tree is missing the hash at level ${level} index ${index}`);
    return h;
  };

  return {
    readHash,
    size: (): number => sizeStmt.get()!,

    /** Inserts the event as the next seq and its Merkle hashes. Must run inside a transaction. */
    append(e: Omit<StoredEvent, 'seq' | 'entry'> & { actor_user_id: string | null }, makeEntry: (seq: number) => string): { seq: number; leaf: Hash } {
      if (!db.inTransaction) throw new Error('appendAuditEvent must run inside the write transaction');
      const seq = sizeStmt.get()! + 1;
      const entry = makeEntry(seq);
      if (Buffer.byteLength(entry, 'utf8') > MAX_ENTRY_BYTES) throw new Error(`audit entry of seq ${seq} exceeds ${MAX_ENTRY_BYTES} bytes`);
      insertEvent.run({ ...e, seq, entry });
      const leaf = leafHash(entry);
      for (const h of hashesForAppend(seq - 1, leaf, readHash)) insertHash.run(h.level, h.index, h.hash);
      return { seq, leaf };
    },

    event: (seq: number): StoredEvent | undefined => eventStmt.get(seq),

    events(f: EventFilter): StoredEvent[] {
      const where = ['seq > @afterSeq'];
      if (f.kind !== undefined) where.push('kind = @kind');
      if (f.subjectType !== undefined) where.push('subject_type = @subjectType');
      if (f.subjectId !== undefined) where.push('subject_id = @subjectId');
      return db
        .prepare(`SELECT seq, kind, subject_type, subject_id, actor, created_at, entry FROM audit_events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit`)
        .all(f) as StoredEvent[];
    },

    /**
     * The log's origin, fixed on first use: the stored one; else, for a log made before origins were
     * stored, the origin its newest checkpoint was signed under; else `forNewLog`. Serialised by the
     * write lock, so the server and the pipeline opening one new log at once agree.
     */
    fixOrigin(forNewLog: string, createdAt: string): { origin: string; fixedNow: boolean } {
      return db
        .transaction(() => {
          const stored = originStmt.get();
          if (stored !== undefined) return { origin: stored, fixedNow: false };
          const note = newestNoteStmt.get();
          const origin = note !== undefined ? note.slice(0, note.indexOf('\n')) : forNewLog;
          insertOrigin.run(origin, createdAt);
          return { origin, fixedNow: true };
        })
        .immediate();
    },

    /** Stored hashes at `level`, indexes [from, from + count), in order; fewer when the tree has fewer. */
    hashRange: (level: number, from: number, count: number): Buffer[] => hashRangeStmt.all(level, from, from + count),
    /** The entries of events [fromSeq, fromSeq + count), in seq order; fewer when the log has fewer. */
    entryRange: (fromSeq: number, count: number): string[] => entryRangeStmt.all(fromSeq, fromSeq + count),

    lastCheckpoint: (): StoredCheckpoint | undefined => lastCheckpointStmt.get(),
    addCheckpoint: (c: StoredCheckpoint) => insertCheckpoint.run(c.tree_size, c.root_hash, c.note, c.created_at),
    checkpoints: (afterSize: number, limit: number): StoredCheckpoint[] => checkpointsStmt.all(afterSize, limit),
  };
}

export type AuditStore = ReturnType<typeof auditStore>;
