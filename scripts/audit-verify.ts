// npm run audit:verify -- <base_url>: verifies a deployment's audit log without trusting it. Downloads
// every event and checkpoint, checks each checkpoint's signature with the published key, recomputes every
// root from the events, checks consistency proofs between successive checkpoints, and prints OK or the
// first seq that fails.
import { openCheckpoint } from '../api/audit/checkpoint.ts';
import { MemoryTree, leafHash, verifyConsistency, verifyInclusion } from '../api/audit/merkle.ts';
import { helpRequested } from './cli.ts';

export interface VerifyResult {
  ok: boolean;
  events: number;
  checkpoints: number;
  /** The first seq that fails, when one can be named. */
  failedSeq?: number;
  reason?: string;
}

type Fetch = (url: string) => Promise<Response>;

async function getJson<T>(f: Fetch, url: string): Promise<T> {
  const res = await f(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}

interface Event { seq: number; kind: string; subject_type: string; subject_id: string; actor: string; created_at: string; entry: string; leaf_hash: string }
interface Checkpoint { tree_size: number; root_hash: string; note: string }

export async function verifyAuditLog(baseUrl: string, f: Fetch = fetch): Promise<VerifyResult> {
  const base = baseUrl.replace(/\/+$/, '');
  const key = await getJson<{ verifier_key: string; origin: string }>(f, `${base}/api/audit/pubkey`);

  const events: Event[] = [];
  for (let after = 0; ; ) {
    const page = await getJson<{ items: Event[]; next_after_seq: number | null }>(f, `${base}/api/audit?after_seq=${after}&limit=200`);
    events.push(...page.items);
    if (page.next_after_seq === null) break;
    after = page.next_after_seq;
  }
  const checkpoints: Checkpoint[] = [];
  for (let after = 0; ; ) {
    const page = await getJson<{ items: Checkpoint[]; next_after_seq: number | null }>(f, `${base}/api/audit/checkpoints?after_seq=${after}&limit=100`);
    checkpoints.push(...page.items);
    if (page.next_after_seq === null) break;
    after = page.next_after_seq;
  }
  const result = (r: Omit<VerifyResult, 'events' | 'checkpoints'>): VerifyResult => ({ events: events.length, checkpoints: checkpoints.length, ...r });

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

  // 2. Every checkpoint: signed by the published key, for this log, with the root the events give.
  let previous: { size: number; root: Buffer } | null = null;
  for (const cp of checkpoints) {
    const parsed = openCheckpoint(cp.note, key.verifier_key);
    if (!parsed) return result({ ok: false, reason: `checkpoint ${cp.tree_size}: signature does not verify` });
    if (parsed.origin !== key.origin || parsed.size !== cp.tree_size) return result({ ok: false, reason: `checkpoint ${cp.tree_size}: note does not match` });
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
  return result({ ok: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: npm run audit:verify -- <base_url>

Verifies a deployment's audit log without trusting it: every checkpoint's signature against the published
key, every root recomputed from the events, consistency between successive checkpoints. Prints OK or the
first seq that fails (exit 1).`);
  const baseUrl = process.argv[2];
  if (!baseUrl) {
    console.error('usage: npm run audit:verify -- <base_url>');
    process.exit(2);
  }
  try {
    const r = await verifyAuditLog(baseUrl);
    if (r.ok) {
      console.log(`OK: ${r.events} events, ${r.checkpoints} signed checkpoints verified`);
    } else {
      console.log(`FAIL${r.failedSeq !== undefined ? ` at seq ${r.failedSeq}` : ''}: ${r.reason}`);
      process.exit(1);
    }
  } catch (err) {
    console.error(`audit:verify: ${(err as Error).message}`);
    process.exit(2);
  }
}
