// Git over isomorphic-git, on bare repositories only: notes are read from and written to objects and refs,
// never to a working tree, so a slug never becomes a filesystem path. Talks git's smart HTTP protocol to
// the host through a fetch-based client with a timeout, and turns host failures into typed HostErrors.
import fs from 'node:fs';
import git, { type CommitObject, type HttpClient, type TreeEntry } from 'isomorphic-git';
import { NOTES_DIR, noteFileName, slugOfEntry } from './slug.ts';

export type HostErrorKind = 'unauthorized' | 'forbidden' | 'not_found' | 'unreachable' | 'rejected' | 'conflict' | 'failed';

/** Something the host did (or did not do): the caller decides what the person sees. */
export class HostError extends Error {
  readonly kind: HostErrorKind;
  constructor(kind: HostErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function networkError(url: string, err: unknown): HostError {
  const e = err as { name?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const why = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : code && NETWORK_CODES.has(code) ? code : (e.cause?.message ?? (err as Error).message);
  return new HostError('unreachable', `cannot reach ${new URL(url).host} (${why})`);
}

/** isomorphic-git's HTTP client contract over fetch, with a deadline per request (its own node client has none). */
export function httpClient(timeoutMs: number): HttpClient {
  return {
    async request({ url, method = 'GET', headers = {}, body }) {
      let payload: Uint8Array<ArrayBuffer> | undefined;
      if (body) {
        const parts: Uint8Array[] = [];
        for await (const part of body) parts.push(part);
        payload = new Uint8Array(Buffer.concat(parts));
      }
      let res: Response;
      let data: Uint8Array;
      try {
        res = await fetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs) });
        data = new Uint8Array(await res.arrayBuffer());
      } catch (err) {
        throw networkError(url, err);
      }
      return {
        url: res.url,
        method,
        statusCode: res.status,
        statusMessage: res.statusText,
        headers: Object.fromEntries(res.headers),
        body: (async function* () {
          yield data;
        })(),
      };
    },
  };
}

/** Maps what isomorphic-git and the client throw to a HostError; anything else (our bug, a disk error) is null. */
export function asHostError(err: unknown): HostError | null {
  if (err instanceof HostError) return err;
  const e = err as { code?: string; data?: { statusCode?: number; prettyDetails?: string; reason?: string }; message?: string };
  switch (e?.code) {
    case 'HttpError': {
      const status = e.data?.statusCode ?? 0;
      if (status === 401) return new HostError('unauthorized', 'the host refused the access token (401)');
      if (status === 403) return new HostError('forbidden', 'the host denied access to the repository (403)');
      if (status === 404) return new HostError('not_found', 'the repository was not found at the host (404)');
      if (status >= 500) return new HostError('unreachable', `the host failed (${status})`);
      return new HostError('failed', `the host answered ${status}`);
    }
    case 'PushRejectedError':
      return new HostError('conflict', 'the branch moved on the host');
    case 'GitPushError': {
      const details = (e.data?.prettyDetails ?? '').trim();
      // receive-pack's compare-and-swap lost a race, or a non-fast-forward update was refused.
      if (/fetch first|non-fast-forward|stale info|failed to update ref|cannot lock|failed to lock/i.test(details)) return new HostError('conflict', 'the branch moved on the host');
      return new HostError('rejected', `the host rejected the push${details ? `: ${details.replace(/\s+/g, ' ').slice(0, 300)}` : ''}`);
    }
    case 'SmartHttpError':
    case 'ParseError':
    case 'EmptyServerResponseError':
      return new HostError('failed', 'the host did not answer as a git server');
    default:
      return null;
  }
}

export interface GitContext {
  gitdir: string;
  /** isomorphic-git's object cache, one per repository. */
  cache: object;
}

export interface Signature {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

export async function initRepo(gitdir: string, branch: string): Promise<void> {
  await git.init({ fs, gitdir, bare: true, defaultBranch: branch });
}

export async function setOrigin(gitdir: string, url: string): Promise<void> {
  // The URL only: credentials go in per-request headers and never reach the repository's config.
  await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
}

export async function setHead(gitdir: string, branch: string): Promise<void> {
  await git.writeRef({ fs, gitdir, ref: 'HEAD', value: `refs/heads/${branch}`, symbolic: true, force: true });
}

export async function resolve(gitdir: string, ref: string): Promise<string | null> {
  try {
    return await git.resolveRef({ fs, gitdir, ref });
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return null;
    throw err;
  }
}

export const resolveBranch = (gitdir: string, branch: string) => resolve(gitdir, `refs/heads/${branch}`);
export const resolveOrigin = (gitdir: string, branch: string) => resolve(gitdir, `refs/remotes/origin/${branch}`);

export async function setBranch(gitdir: string, branch: string, oid: string | null): Promise<void> {
  if (oid) await git.writeRef({ fs, gitdir, ref: `refs/heads/${branch}`, value: oid, force: true });
  else await git.deleteRef({ fs, gitdir, ref: `refs/heads/${branch}` }).catch(() => {});
}

/** Fetches the branch (or the host's default branch) from origin; the remote tip and branch, null when the repository is empty. */
export async function fetchOrigin(ctx: GitContext, http: HttpClient, headers: Record<string, string>, branch?: string): Promise<{ tip: string | null; branch: string | null }> {
  try {
    const r = await git.fetch({ fs, http, gitdir: ctx.gitdir, cache: ctx.cache, remote: 'origin', ref: branch, singleBranch: true, tags: false, headers: { ...headers } });
    return { tip: r.fetchHead ?? null, branch: r.defaultBranch ? r.defaultBranch.replace(/^refs\/heads\//, '') : (branch ?? null) };
  } catch (err) {
    throw asHostError(err) ?? err;
  }
}

export async function pushOrigin(ctx: GitContext, http: HttpClient, headers: Record<string, string>, branch: string): Promise<void> {
  try {
    // A fresh headers object each call: isomorphic-git adds to the one it is given.
    await git.push({ fs, http, gitdir: ctx.gitdir, cache: ctx.cache, remote: 'origin', ref: branch, remoteRef: branch, headers: { ...headers } });
  } catch (err) {
    throw asHostError(err) ?? err;
  }
}

export async function readCommit(ctx: GitContext, oid: string): Promise<CommitObject> {
  return (await git.readCommit({ fs, gitdir: ctx.gitdir, oid, cache: ctx.cache })).commit;
}

export const isDescendent = (ctx: GitContext, oid: string, ancestor: string) =>
  git.isDescendent({ fs, gitdir: ctx.gitdir, oid, ancestor, depth: -1, cache: ctx.cache });

export async function mergeBase(ctx: GitContext, a: string, b: string): Promise<string | null> {
  const bases = await git.findMergeBase({ fs, gitdir: ctx.gitdir, oids: [a, b], cache: ctx.cache });
  return bases[0] ?? null;
}

export async function readText(ctx: GitContext, blob: string): Promise<string> {
  const { blob: bytes } = await git.readBlob({ fs, gitdir: ctx.gitdir, oid: blob, cache: ctx.cache });
  return Buffer.from(bytes).toString('utf8');
}

export async function blobIdOf(content: string): Promise<string> {
  return (await git.hashBlob({ object: Buffer.from(content, 'utf8') })).oid;
}

export async function writeText(ctx: GitContext, content: string): Promise<string> {
  return git.writeBlob({ fs, gitdir: ctx.gitdir, blob: Buffer.from(content, 'utf8') });
}

// Trees are content-addressed: what a tree id lists never changes, so it is cached across requests.
const notesByTree = new Map<string, Map<string, string>>();
const TREE_CACHE_MAX = 5000;

async function rootEntries(ctx: GitContext, commit: string | null): Promise<TreeEntry[]> {
  if (!commit) return [];
  const c = await readCommit(ctx, commit);
  return (await git.readTree({ fs, gitdir: ctx.gitdir, oid: c.tree, cache: ctx.cache })).tree;
}

async function notesTreeOf(ctx: GitContext, commit: string | null): Promise<string | null> {
  return (await rootEntries(ctx, commit)).find((e) => e.path === NOTES_DIR && e.type === 'tree')?.oid ?? null;
}

/** The notes of a commit: slug → blob id. Files in notes/ that are not `<slug>.md` are not notes. */
export async function notesAt(ctx: GitContext, commit: string | null): Promise<Map<string, string>> {
  const tree = await notesTreeOf(ctx, commit);
  if (!tree) return new Map();
  const hit = notesByTree.get(tree);
  if (hit) return hit;
  const entries = (await git.readTree({ fs, gitdir: ctx.gitdir, oid: tree, cache: ctx.cache })).tree;
  const notes = new Map<string, string>();
  for (const e of entries) {
    const slug = e.type === 'blob' ? slugOfEntry(e.path) : null;
    if (slug) notes.set(slug, e.oid);
  }
  if (notesByTree.size >= TREE_CACHE_MAX) notesByTree.delete(notesByTree.keys().next().value!);
  notesByTree.set(tree, notes);
  return notes;
}

export interface NoteChange {
  slug: string;
  /** The new blob (already written), or null to delete the note. */
  blob: string | null;
}

/**
 * A commit on `parent` that applies `changes` to notes/ and keeps every other file as it was. Does not move
 * any branch: the caller decides when the commit becomes the branch tip.
 */
export async function commitNotes(ctx: GitContext, parent: string | null, changes: NoteChange[], message: string, author: Signature, committer: Signature = author): Promise<string> {
  const root = await rootEntries(ctx, parent);
  const notesTree = root.find((e) => e.path === NOTES_DIR && e.type === 'tree')?.oid;
  const entries = notesTree ? [...(await git.readTree({ fs, gitdir: ctx.gitdir, oid: notesTree, cache: ctx.cache })).tree] : [];
  for (const change of changes) {
    const name = noteFileName(change.slug);
    const i = entries.findIndex((e) => e.path === name);
    if (i >= 0) entries.splice(i, 1);
    if (change.blob) entries.push({ mode: '100644', path: name, oid: change.blob, type: 'blob' });
  }
  const newRoot = root.filter((e) => e.path !== NOTES_DIR);
  if (entries.length > 0) newRoot.push({ mode: '040000', path: NOTES_DIR, oid: await git.writeTree({ fs, gitdir: ctx.gitdir, tree: entries }), type: 'tree' });
  const tree = await git.writeTree({ fs, gitdir: ctx.gitdir, tree: newRoot });
  return git.writeCommit({ fs, gitdir: ctx.gitdir, commit: { message, tree, parent: parent ? [parent] : [], author, committer } });
}

/** Commits newest first (by committer time, as `git log` orders them), following every parent. */
export async function* walkCommits(ctx: GitContext, tip: string | null, max = 10_000): AsyncGenerator<{ oid: string; commit: CommitObject }> {
  if (!tip) return;
  const seen = new Set([tip]);
  const queue: { oid: string; commit: CommitObject }[] = [{ oid: tip, commit: await readCommit(ctx, tip) }];
  for (let n = 0; queue.length > 0 && n < max; n++) {
    const next = queue.shift()!;
    yield next;
    for (const p of next.commit.parent) {
      if (seen.has(p)) continue;
      seen.add(p);
      let commit: CommitObject;
      try {
        commit = await readCommit(ctx, p);
      } catch {
        continue; // a shallow or damaged history: show what there is
      }
      const at = queue.findIndex((q) => q.commit.committer.timestamp < commit.committer.timestamp);
      queue.splice(at < 0 ? queue.length : at, 0, { oid: p, commit });
    }
  }
}

export interface NoteDiff {
  slug: string;
  before: string | null;
  after: string | null;
}

/** What a commit changed in notes/ against its first parent. */
export async function notesChanged(ctx: GitContext, commit: string, parent: string | null): Promise<NoteDiff[]> {
  const [before, after] = await Promise.all([notesAt(ctx, parent), notesAt(ctx, commit)]);
  const out: NoteDiff[] = [];
  for (const slug of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(slug) ?? null;
    const a = after.get(slug) ?? null;
    if (a !== b) out.push({ slug, before: b, after: a });
  }
  return out.sort((x, y) => x.slug.localeCompare(y.slug));
}
