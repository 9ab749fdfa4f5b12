// The audit log: an append-only, sequence-numbered record of every write, as a verifiable transparency
// log. `await audit.append()` is the one function every write calls inside its own transaction; checkpoints
// (C2SP signed notes over the RFC 9162 tree root) are made every N events, every T seconds, and at stop.
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { keysDir, secretKey } from '../keys.ts';
import type { Db } from '../db/index.ts';
import type { Config } from '../../config.ts';
import { canonicalJson } from './canonical.ts';
import { auditStore, type AuditStore, type StoredCheckpoint, type StoredEvent } from './store.ts';
import { EMPTY_ROOT, consistencyProof, inclusionProof, leafHash, treeHash } from './merkle.ts';
import { TILE_HEIGHT, TILE_WIDTH, entryBundle, type TileCoord } from './tiles.ts';
import { checkpointBody, createSigner, isValidKeyName, loadOrCreateKey, signNote, verifierKey, type NoteSigner } from './checkpoint.ts';

/**
 * Who did it: a signed-in user, or the service itself. A user is published only as a pseudonym scoped to
 * the event's subject (HMAC of the user id, subject type and subject id under a key in DATA_DIR/keys), so
 * one pseudonym never spans two subjects: the events on a public subject (a sign-in names its user, a
 * comment its author) cannot be used to recognise that person's events on any other subject.
 */
export type AuditActor = { userId: string } | 'system' | 'pipeline';

export interface AuditEventInput {
  /** Dotted verb, e.g. `auth.sign_in`, `comment.create`, `proposal.flag`. */
  kind: string;
  subjectType: string;
  subjectId: string;
  actor: AuditActor;
  /** Small, non-personal facts about the write (ids, states). Public and part of the Merkle leaf. */
  data?: Record<string, unknown>;
  /**
   * An act promised anonymous (a proposal flag): the pseudonym is scoped to the event's kind as well, so it
   * matches no other event, not even the same person's other acts on the same subject.
   */
  anonymous?: boolean;
}

export interface AuditOptions {
  dataDir: string;
  /**
   * The origin a log created now takes, e.g. `kb.example.org/api/audit`: the checkpoint's first line and
   * the note key name. A log keeps the origin it was created with (stored in the database), whatever is
   * passed later.
   */
  origin: string;
  /** `origin` was set explicitly (AUDIT_ORIGIN): refuse to open a log created under another origin. */
  requireOrigin?: boolean;
  checkpointEvery: number;
  checkpointIntervalSeconds: number;
  /** PKCS#8 PEM file of the Ed25519 signing key; created on first start when absent. */
  signingKeyFile?: string;
  now?: () => Date;
  /** Where the checkpoint timer reports a failure (the database unreachable): once, and when it recovers. */
  log?: (message: string) => void;
}

/**
 * The origin a new log takes for a public base URL: the tiles' URL prefix without its scheme,
 * `<host><path>/api/audit`, as C2SP tlog-tiles recommends.
 */
export function auditOrigin(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.host}${u.pathname.replace(/\/+$/, '')}/api/audit`;
}

/**
 * The origin options for a configuration: AUDIT_ORIGIN, which an existing log must match, else the
 * origin derived from BASE_URL, which only a new log takes.
 * @example createAuditLog(db, { dataDir, ...auditOriginOptions(config), checkpointEvery, checkpointIntervalSeconds })
 */
export function auditOriginOptions(config: Pick<Config, 'baseUrl' | 'audit'>): Pick<AuditOptions, 'origin' | 'requireOrigin'> {
  return config.audit.origin ? { origin: config.audit.origin, requireOrigin: true } : { origin: auditOrigin(config.baseUrl) };
}

/** The log in DATA_DIR was created under another origin than AUDIT_ORIGIN. */
export class AuditOriginError extends Error {}


export interface PublicEvent {
  seq: number;
  kind: string;
  subject_type: string;
  subject_id: string;
  actor: string;
  created_at: string;
  data: Record<string, unknown>;
  /** The exact leaf data: SHA-256(0x00 || entry) is the event's Merkle leaf hash. */
  entry: string;
  leaf_hash: string;
}

/**
 * Opens the audit log in `db`: fixes its origin on first use, loads (or creates) its signing key, and
 * returns the writer every write calls and the readers the /api/audit routes serve.
 * @example const audit = await createAuditLog(db, { dataDir, ...auditOriginOptions(config), checkpointEvery: 1000, checkpointIntervalSeconds: 60 })
 */
export async function createAuditLog(db: Db, opts: AuditOptions) {
  const store: AuditStore = auditStore(db);
  const now = opts.now ?? (() => new Date());
  const origin = await fixOrigin(store, opts, now);
  const keyFile = opts.signingKeyFile ?? path.join(keysDir(opts.dataDir), 'audit-ed25519.pem');
  const signer: NoteSigner = createSigner(origin, loadOrCreateKey(keyFile));
  const pseudonymKey = secretKey(opts.dataDir, 'audit-pseudonym.key');
  return {
    signer,
    origin,
    ...auditWriter(db, store, { origin, signer, pseudonymKey, now, opts }),
    ...auditReader(store, origin, signer),
  };
}

/** The origin the log keeps: the one it was created with, checked against AUDIT_ORIGIN when that is set. */
async function fixOrigin(store: AuditStore, opts: AuditOptions, now: () => Date): Promise<string> {
  // The origin is fixed with the log: serving it under another host later must not orphan its checkpoints.
  if (!isValidKeyName(opts.origin)) throw new AuditOriginError(`invalid audit log origin "${opts.origin}": non-empty, without spaces or '+'`);
  const { origin } = await store.fixOrigin(opts.origin, now().toISOString());
  if (opts.requireOrigin && origin !== opts.origin) {
    throw new AuditOriginError(
      `AUDIT_ORIGIN is "${opts.origin}", but the audit log in ${opts.dataDir} was created with origin "${origin}", under which its checkpoints are signed. Unset AUDIT_ORIGIN or set it to "${origin}".`,
    );
  }
  return origin;
}

interface WriterContext {
  origin: string;
  signer: NoteSigner;
  pseudonymKey: Buffer;
  now: () => Date;
  opts: AuditOptions;
}

/** The write side: pseudonyms, append, and the checkpoints made every N events, every T seconds and at stop. */
function auditWriter(db: Db, store: AuditStore, { origin, signer, pseudonymKey, now, opts }: WriterContext) {
  const report = opts.log ?? ((m: string) => console.error(m));
  let timer: NodeJS.Timeout | undefined;

  const actorId = (e: AuditEventInput): string => {
    if (typeof e.actor === 'string') return e.actor;
    const scope = [e.actor.userId, e.subjectType, e.subjectId, e.anonymous ? e.kind : ''].join('\0');
    return `u_${createHmac('sha256', pseudonymKey).update(scope).digest('hex').slice(0, 24)}`;
  };

  /** Signs a checkpoint of the current tree, unless the newest checkpoint already covers it. */
  async function checkpointInTransaction(): Promise<StoredCheckpoint | null> {
    await db.lockWrites();
    const size = await store.size();
    const last = await store.lastCheckpoint();
    if (size === 0 || (last && last.tree_size >= size)) return null;
    const root = await store.withHashes((read) => treeHash(size, read));
    const cp = { tree_size: size, root_hash: root, note: signNote(checkpointBody(origin, size, root), signer), created_at: now().toISOString() };
    await store.addCheckpoint(cp);
    return cp;
  }

  /** Makes a checkpoint now if there is anything new since the last one. */
  function checkpointNow(): Promise<StoredCheckpoint | null> {
    return db.transaction(checkpointInTransaction, { lock: true });
  }

  return {
    /**
     * A subject id for something private that the public log must not name (a person's session): a keyed
     * HMAC of the private id under the pseudonym key, `<prefix>_<24 hex>`. The same private id gives the
     * same pseudonym, so the events of one session share it; without the key it links to nothing else.
     * The same mechanism as a note's pseudonym (src/lib/data/personal-knowledge/crypto.ts), under the audit key.
     * @example audit.subjectPseudonym('ses', sessionIdHash.toString('hex')) // 'ses_3f9c…'
     */
    subjectPseudonym(prefix: string, privateId: string): string {
      const scope = ['subject', prefix, privateId].join('\0');
      return `${prefix}_${createHmac('sha256', pseudonymKey).update(scope).digest('hex').slice(0, 24)}`;
    },

    /**
     * Appends one event as the next seq. Call it inside the write's own transaction, as late as the write
     * allows (it takes the cross-instance write lock, held to the commit), so the write and its event
     * commit or roll back together.
     * @example await db.transaction(async () => { await insertComment(c); await audit.append({ kind: 'comment.create', subjectType: 'comment', subjectId: c.id, actor: { userId } }) })
     */
    async append(e: AuditEventInput): Promise<number> {
      const created_at = now().toISOString();
      const actor = actorId(e);
      const { seq, checkpointed } = await store.append(
        {
          kind: e.kind,
          subject_type: e.subjectType,
          subject_id: e.subjectId,
          actor,
          created_at,
          actor_user_id: typeof e.actor === 'string' ? null : e.actor.userId,
        },
        (seq) => canonicalJson({ seq, kind: e.kind, subject_type: e.subjectType, subject_id: e.subjectId, actor, created_at, data: e.data ?? {} }),
      );
      if (seq - checkpointed >= opts.checkpointEvery) await checkpointInTransaction();
      return seq;
    },

    checkpointNow,

    /** Starts the timer that checkpoints new events at least every checkpointIntervalSeconds. */
    startCheckpointing(): void {
      // A tick that fails (the database restarting) is logged once and tried again at the next tick: an
      // error thrown from a timer would end the process, every instance at once on a shared database.
      let failing: string | null = null;
      let ticking = false;
      const tick = async () => {
        const last = await store.lastCheckpoint();
        const due = !last || now().getTime() - Date.parse(last.created_at) >= opts.checkpointIntervalSeconds * 1000;
        if (due && (await store.size()) > (last?.tree_size ?? 0)) await checkpointNow();
      };
      timer ??= setInterval(() => {
        if (ticking) return; // the database is slow: one tick at a time
        ticking = true;
        tick()
          .then(() => {
            if (failing) report('audit: checkpoints are made again');
            failing = null;
          })
          .catch((err: Error) => {
            if (failing !== err.message) report(`audit: a checkpoint could not be made (${err.message}); retrying every tick`);
            failing = err.message;
          })
          .finally(() => (ticking = false));
      }, Math.min(1000, opts.checkpointIntervalSeconds * 1000)).unref();
    },

    /** Stops the timer and seals what was appended with a final checkpoint. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await checkpointNow();
    },
  };
}

/** The read side: event and checkpoint pages, the public key, tiles and proofs. */
function auditReader(store: AuditStore, origin: string, signer: NoteSigner) {
  return {
    size: () => store.size(),

    async events(filter: { afterSeq: number; limit: number; kind?: string; subjectType?: string; subjectId?: string }) {
      // One more than asked tells whether there is a next page without a count query.
      const rows = await store.events({ ...filter, limit: filter.limit + 1 });
      const items = rows.slice(0, filter.limit).map(publicEvent);
      return {
        items,
        next_after_seq: rows.length > filter.limit ? items[items.length - 1].seq : null,
        tree_size: await store.size(),
      };
    },

    async checkpoints(afterSize: number, limit: number) {
      const rows = await store.checkpoints(afterSize, limit + 1);
      const items = rows.slice(0, limit).map((c) => ({
        tree_size: c.tree_size,
        root_hash: c.root_hash.toString('base64'),
        created_at: c.created_at,
        note: c.note,
      }));
      return { items, next_after_seq: rows.length > limit ? items[items.length - 1].tree_size : null };
    },

    publicKey() {
      return {
        algorithm: 'Ed25519',
        origin,
        key_name: signer.name,
        key_id: signer.keyId.toString('hex'),
        verifier_key: verifierKey(signer),
        public_key: signer.rawPublicKey.toString('base64'),
        public_key_pem: signer.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        checkpoint_format: 'https://c2sp.org/tlog-checkpoint',
        note_format: 'https://c2sp.org/signed-note',
      };
    },

    /**
     * The newest signed checkpoint (a C2SP signed note); before the first one, a signed checkpoint of the
     * empty tree (Ed25519 signatures are deterministic, so it is the same bytes every time).
     */
    async latestCheckpointNote(): Promise<string> {
      return (await store.lastCheckpoint())?.note ?? signNote(checkpointBody(origin, 0, EMPTY_ROOT), signer);
    },

    /**
     * A tlog-tiles resource: the hashes of a hash tile, or an entry bundle. Null when the log does not
     * hold all of it yet. What it returns never changes: the log's tables refuse UPDATE and DELETE.
     */
    async tile(t: TileCoord): Promise<Buffer | null> {
      if (t.level === 'entries') {
        const entries = await store.entryRange(t.index * TILE_WIDTH + 1, t.width);
        return entries.length === t.width ? entryBundle(entries) : null;
      }
      const hashes = await store.hashRange(t.level * TILE_HEIGHT, t.index * TILE_WIDTH, t.width);
      return hashes.length === t.width ? Buffer.concat(hashes) : null;
    },

    /** Inclusion proof of event `seq` in the tree of `treeSize`; callers check the bounds. */
    async inclusion(seq: number, treeSize: number) {
      const event = (await store.event(seq))!;
      const [root, proof] = await store.withHashes((read) => [treeHash(treeSize, read), inclusionProof(seq - 1, treeSize, read)] as const);
      return {
        seq,
        leaf_index: seq - 1,
        tree_size: treeSize,
        leaf_hash: leafHash(event.entry).toString('base64'),
        root_hash: root.toString('base64'),
        proof: proof.map((h) => h.toString('base64')),
      };
    },

    /** Consistency proof from the tree of `from` leaves to the tree of `to`; callers check the bounds. */
    async consistency(from: number, to: number) {
      const [fromRoot, toRoot, proof] = await store.withHashes((read) => [treeHash(from, read), treeHash(to, read), consistencyProof(from, to, read)] as const);
      return {
        from,
        to,
        from_root: fromRoot.toString('base64'),
        to_root: toRoot.toString('base64'),
        proof: proof.map((h) => h.toString('base64')),
      };
    },
  };
}

function publicEvent(e: StoredEvent): PublicEvent {
  return {
    seq: e.seq,
    kind: e.kind,
    subject_type: e.subject_type,
    subject_id: e.subject_id,
    actor: e.actor,
    created_at: e.created_at,
    data: (JSON.parse(e.entry) as { data: Record<string, unknown> }).data,
    entry: e.entry,
    leaf_hash: leafHash(e.entry).toString('base64'),
  };
}

export type AuditLog = Awaited<ReturnType<typeof createAuditLog>>;
