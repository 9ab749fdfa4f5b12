// npm run audit:verify -- <base_url> [--key <verifier key>] [--state <file>]: verifies a deployment's audit
// log without trusting it. Downloads every event and checkpoint, checks each checkpoint's signature, recomputes
// every root from the events, checks consistency proofs between successive checkpoints, and prints OK or the
// first seq that fails. A signature only proves the key holder signed: with the key pinned (--key) and the
// last verified checkpoint kept (--state), it also catches a log rewritten and re-signed with the same key
// (a fork: two roots for one tree size) and a log cut back (a rollback), which a single look cannot.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openCheckpoint, type ParsedCheckpoint } from '../src/lib/data/audit/checkpoint.ts';
import { EMPTY_ROOT, MemoryTree, leafHash, verifyConsistency, verifyInclusion } from '../src/lib/data/audit/merkle.ts';
import { helpRequested } from './cli.ts';

export interface VerifyResult {
  ok: boolean;
  events: number;
  checkpoints: number;
  /** The first seq that fails, when one can be named. */
  failedSeq?: number;
  reason?: string;
  /** What to keep for the next run (--state): the newest checkpoint verified. Set when ok. */
  state?: VerifierState;
  /** Said on stderr: e.g. that the key came from the server itself. */
  warnings: string[];
}

/** The --state file: the newest checkpoint this verifier accepted, and the key it accepted it under. */
export interface VerifierState {
  verifier_key: string;
  tree_size: number;
  root_hash: string;
  /** The signed note itself: with a later different one for the same size, proof of a fork. */
  checkpoint: string;
  verified_at: string;
}

export interface VerifyOptions {
  /** The pinned signed-note verifier key, `<name>+<hex id>+<base64 key>`; default: the state's, else the server's. */
  key?: string;
  /** The state a previous run left; null or absent on the first run. */
  state?: VerifierState | null;
  fetch?: (url: string) => Promise<Response>;
  now?: () => Date;
}

const VERIFIER_KEY = /^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+$/;

async function getJson<T>(f: NonNullable<VerifyOptions['fetch']>, url: string): Promise<T> {
  const res = await f(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}

/**
 * Every item of a list paged by after_seq. The server says where the next page starts; a page that holds no
 * items but names a next one, or a next_after_seq that does not move past the current one, would make a
 * verifier that trusts it ask forever (a hostile or broken server): it stops with an error instead.
 */
async function allPages<T>(f: NonNullable<VerifyOptions['fetch']>, url: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  for (let after = 0; ; ) {
    const page = await getJson<{ items?: unknown; next_after_seq?: unknown }>(f, `${url}?after_seq=${after}&limit=${limit}`);
    if (!Array.isArray(page.items)) throw new Error(`GET ${url}?after_seq=${after}: the answer has no items list`);
    items.push(...(page.items as T[]));
    const next = page.next_after_seq;
    if (next === null || next === undefined) return items;
    if (typeof next !== 'number' || !Number.isSafeInteger(next) || next <= after || page.items.length === 0) {
      throw new Error(`GET ${url}?after_seq=${after}: next_after_seq ${JSON.stringify(next)} does not advance past ${after}${page.items.length === 0 ? ' (and the page is empty)' : ''}; the server's paging is broken, stopped`);
    }
    after = next;
  }
}

interface Event { seq: number; kind: string; subject_type: string; subject_id: string; actor: string; created_at: string; entry: string; leaf_hash: string }
interface Checkpoint { tree_size: number; root_hash: string; note: string }

export async function verifyAuditLog(baseUrl: string, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const f = opts.fetch ?? fetch;
  const base = baseUrl.replace(/\/+$/, '');
  const state = opts.state ?? null;
  const warnings: string[] = [];

  if (opts.key && state && state.verifier_key !== opts.key) {
    throw new Error(`the state file was written for the key ${state.verifier_key}, not the pinned ${opts.key}`);
  }
  let key = opts.key ?? state?.verifier_key;
  if (!key) {
    key = (await getJson<{ verifier_key: string }>(f, `${base}/api/audit/pubkey`)).verifier_key;
    warnings.push(`the verifier key came from the server itself (${key}); pin it with --key, from a copy the server cannot change`);
  }
  if (!VERIFIER_KEY.test(key)) throw new Error(`not a signed-note verifier key: ${key}`);
  const origin = key.slice(0, key.indexOf('+'));
  if (state && !openCheckpoint(state.checkpoint, key)) throw new Error('the state file’s checkpoint does not verify under its key');

  const events = await allPages<Event>(f, `${base}/api/audit`, 200);
  const checkpoints = await allPages<Checkpoint>(f, `${base}/api/audit/checkpoints`, 100);
  const latestRes = await f(`${base}/api/audit/checkpoint`);
  if (!latestRes.ok) throw new Error(`GET ${base}/api/audit/checkpoint: ${latestRes.status}`);
  const latestNote = await latestRes.text();
  const result = (r: Omit<VerifyResult, 'events' | 'checkpoints' | 'warnings'>): VerifyResult => ({ events: events.length, checkpoints: checkpoints.length, ...r, warnings });

  // 1. Every event: consecutive seq, its fields are what its entry says, its leaf hash is the entry's.
  const tree = new MemoryTree();
  for (const [i, e] of events.entries()) {
    if (e.seq !== i + 1) return result({ ok: false, failedSeq: i + 1, reason: `seq ${i + 1} is missing (next is ${e.seq})` });
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(e.entry);
    } catch {
      return result({ ok: false, failedSeq: e.seq, reason: 'entry is not JSON' });
    }
    for (const k of ['seq', 'kind', 'subject_type', 'subject_id', 'actor', 'created_at'] as const) {
      if (entry[k] !== e[k]) return result({ ok: false, failedSeq: e.seq, reason: `${k} differs from the signed entry` });
    }
    const leaf = leafHash(e.entry);
    if (leaf.toString('base64') !== e.leaf_hash) return result({ ok: false, failedSeq: e.seq, reason: 'leaf_hash does not match the entry' });
    tree.append(leaf);
  }
  const rootOf = (size: number) => (size === 0 ? EMPTY_ROOT : tree.root(size));

  // 2. Every checkpoint: signed by the key, for this log, with the root the events give.
  let previous: { size: number; root: Buffer } | null = null;
  for (const cp of checkpoints) {
    const parsed = openCheckpoint(cp.note, key);
    if (!parsed) return result({ ok: false, reason: `checkpoint ${cp.tree_size}: signature does not verify under ${key}` });
    if (parsed.origin !== origin || parsed.size !== cp.tree_size) return result({ ok: false, reason: `checkpoint ${cp.tree_size}: note does not match` });
    if (parsed.size > tree.size) return result({ ok: false, failedSeq: tree.size + 1, reason: `checkpoint ${parsed.size} covers events the log does not serve` });
    if (!tree.root(parsed.size).equals(parsed.root)) {
      // The events before the previous good checkpoint are fine; find the first one the signed tree disowns.
      const from = previous?.size ?? 0;
      for (let seq = from + 1; seq <= parsed.size; seq++) {
        const proof = await getJson<{ proof: string[] }>(f, `${base}/api/audit/proof/inclusion?seq=${seq}&tree_size=${parsed.size}`);
        const ok = verifyInclusion(seq - 1, parsed.size, leafHash(events[seq - 1].entry), proof.proof.map((p) => Buffer.from(p, 'base64')), parsed.root);
        if (!ok) return result({ ok: false, failedSeq: seq, reason: `event ${seq} is not the one checkpoint ${parsed.size} signed` });
      }
      return result({ ok: false, failedSeq: from + 1, reason: `checkpoint ${parsed.size}: root differs from the events between ${from + 1} and ${parsed.size}` });
    }
    // 3. Successive checkpoints: the server's consistency proof must link them.
    if (previous && previous.size < parsed.size) {
      const c = await getJson<{ proof: string[] }>(f, `${base}/api/audit/proof/consistency?from=${previous.size}&to=${parsed.size}`);
      if (!verifyConsistency(previous.size, parsed.size, previous.root, parsed.root, c.proof.map((p) => Buffer.from(p, 'base64')))) {
        return result({ ok: false, failedSeq: previous.size + 1, reason: `no valid consistency proof from ${previous.size} to ${parsed.size}` });
      }
    }
    previous = { size: parsed.size, root: parsed.root };
  }

  // 4. The latest checkpoint (the one tiles clients read): signed, and no older than any listed.
  const latest: ParsedCheckpoint | null = openCheckpoint(latestNote, key);
  if (!latest || latest.origin !== origin) return result({ ok: false, reason: `/api/audit/checkpoint: signature does not verify under ${key}` });
  if (latest.size < (previous?.size ?? 0)) return result({ ok: false, reason: `/api/audit/checkpoint is of tree size ${latest.size}, older than the listed checkpoint ${previous!.size}` });
  if (latest.size > tree.size) return result({ ok: false, failedSeq: tree.size + 1, reason: `/api/audit/checkpoint covers events the log does not serve` });
  if (!rootOf(latest.size).equals(latest.root)) return result({ ok: false, reason: `/api/audit/checkpoint: root differs from the events up to ${latest.size}` });

  // 5. Against what this verifier accepted before: the log only grows, and never changes what it had.
  if (state) {
    const before = openCheckpoint(state.checkpoint, key)!;
    if (latest.size < before.size) {
      return result({ ok: false, reason: `rollback: the log's latest checkpoint is of tree size ${latest.size}, but one of tree size ${before.size} was verified before (state file)` });
    }
    const now = rootOf(before.size);
    if (!now.equals(before.root)) {
      const signedNow = checkpoints.find((c) => c.tree_size === before.size);
      return result({
        ok: false,
        reason:
          `fork: the log now gives tree size ${before.size} the root ${now.toString('base64')}, but the checkpoint verified before (state file) signed ${before.root.toString('base64')}: ` +
          `the log was rewritten since.${signedNow ? ' Both are signed by the key: the two notes are the proof.' : ''}`,
      });
    }
  }
  return result({
    ok: true,
    state: {
      verifier_key: key,
      tree_size: latest.size,
      root_hash: latest.root.toString('base64'),
      checkpoint: latestNote,
      verified_at: (opts.now ?? (() => new Date()))().toISOString(),
    },
  });
}

/** Reads --state; null when the file does not exist yet (the first run). */
export function readVerifierState(file: string): VerifierState | null {
  if (!fs.existsSync(file)) return null;
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as VerifierState;
  if (typeof s.verifier_key !== 'string' || typeof s.checkpoint !== 'string' || !Number.isInteger(s.tree_size)) throw new Error(`${file} is not a state file of audit:verify`);
  return s;
}

/** Writes --state whole or not at all (temp file, then rename). */
export function writeVerifierState(file: string, s: VerifierState): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/** --key takes the verifier key itself, or a file holding it. */
function readKey(value: string): string {
  const key = VERIFIER_KEY.test(value) ? value : fs.existsSync(value) ? fs.readFileSync(value, 'utf8').trim() : value;
  if (!VERIFIER_KEY.test(key)) throw new Error(`--key: expected a verifier key <name>+<hex key id>+<base64 key>, or a file holding one; got ${value}`);
  return key;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const usage = 'usage: npm run audit:verify -- <base_url> [--key <verifier key or file>] [--state <file>]';
  helpRequested(`${usage}

Verifies a deployment's audit log without trusting it: every checkpoint's signature, every root recomputed
from the events, consistency between successive checkpoints. Prints OK or the first seq that fails (exit 1).

  --key <key>     the log's signed-note verifier key (<name>+<hex key id>+<base64 key>, as GET
                  /api/audit/pubkey's verifier_key), or a file holding it, taken from a copy the server
                  cannot change. Without it, the state's key is used, else the server's own (said on stderr).
  --state <file>  the newest checkpoint verified before, updated after each OK (created on the first run).
                  With it, a log rewritten and re-signed with the same key (a fork: two roots for one tree
                  size) or cut back (a rollback) fails, though everything it serves verifies.

Exit status: 0 OK, 1 the log fails, 2 usage or network errors.`);
  try {
    const { values, positionals } = parseArgs({ options: { key: { type: 'string' }, state: { type: 'string' } }, allowPositionals: true });
    if (positionals.length !== 1) {
      console.error(usage);
      process.exit(2);
    }
    const state = values.state ? readVerifierState(values.state) : null;
    const r = await verifyAuditLog(positionals[0], { key: values.key ? readKey(values.key) : undefined, state });
    for (const w of r.warnings) console.error(`audit:verify: ${w}`);
    if (r.ok) {
      console.log(`OK: ${r.events} events, ${r.checkpoints} signed checkpoints verified`);
      if (values.state) {
        writeVerifierState(values.state, r.state!);
        console.error(`audit:verify: ${values.state} now holds the checkpoint of tree size ${r.state!.tree_size}${state ? ` (was ${state.tree_size})` : ''}`);
      }
    } else {
      console.log(`FAIL${r.failedSeq !== undefined ? ` at seq ${r.failedSeq}` : ''}: ${r.reason}`);
      process.exit(1);
    }
  } catch (err) {
    console.error(`audit:verify: ${(err as Error).message}`);
    process.exit(2);
  }
}
