// Keeping a local clone and the host in step: the access token (renewed before it expires, or once after a
// 401), fetch, fast-forward, replay of commits the host has not got onto whatever it has now, push. A push
// that loses a race (the branch moved since our fetch) fetches and tries again, a few times.
import type { HttpClient } from 'isomorphic-git';
import type { VcsConfig } from '../../src/lib/config.ts';
import * as g from './git.ts';
import { HostError, type GitContext } from './git.ts';
import type { HostOAuth } from './oauth-client.ts';
import type { ConnectionRow, HostTokens, PkStore } from '../../src/lib/data/personal-knowledge/store.ts';
import { conflictSlug } from './slug.ts';

/** One operation on one person's repository (under that person's lock). */
export interface Session {
  row: ConnectionRow;
  git: GitContext;
  remote: boolean;
  tokens: HostTokens | null;
  refreshed: boolean;
}

export interface Freshness {
  stale: boolean;
  sync_error: string | null;
}

export const MAX_ATTEMPTS = 3;

/**
 * Puts commits made here while the host moved on top of the host's branch, note by note. A note changed on
 * both sides keeps the host's version under its slug and ours as `<slug>-conflict-<commit>`: nothing is lost.
 */
async function replay(s: Session, local: string, remoteTip: string): Promise<string> {
  const base = await g.mergeBase(s.git, local, remoteTip);
  const pending: { oid: string; parent: string | null; commit: Awaited<ReturnType<typeof g.readCommit>> }[] = [];
  for (let oid: string | null = local; oid && oid !== base && pending.length < 1000; ) {
    const commit = await g.readCommit(s.git, oid);
    pending.push({ oid, parent: commit.parent[0] ?? null, commit });
    oid = commit.parent[0] ?? null;
  }
  let head = remoteTip;
  for (const p of pending.reverse()) {
    const theirs = await g.notesAt(s.git, head);
    const changes: g.NoteChange[] = [];
    const notes: string[] = [];
    for (const d of await g.notesChanged(s.git, p.oid, p.parent)) {
      const now = theirs.get(d.slug) ?? null;
      if (now === d.after) continue;
      if (now === d.before) changes.push({ slug: d.slug, blob: d.after });
      else if (d.after) {
        const copy = conflictSlug(d.slug, p.oid);
        changes.push({ slug: copy, blob: d.after });
        notes.push(`"${d.slug}" also changed on the host; this version is kept as "${copy}".`);
      } // deleted here, changed there: the host's version stays
    }
    if (changes.length === 0) continue;
    const message = notes.length ? `${p.commit.message.trimEnd()}\n\n${notes.join('\n')}\n` : p.commit.message;
    head = await g.commitNotes(s.git, head, changes, message, p.commit.author, { ...p.commit.committer, timestamp: Math.floor(Date.now() / 1000) });
  }
  return head;
}

/** Commits on the local branch the host does not have yet. */
async function countUnpushed(s: Session): Promise<number> {
  if (!s.remote) return 0;
  const local = await g.resolveBranch(s.git.gitdir, s.row.branch);
  const origin = await g.resolveOrigin(s.git.gitdir, s.row.branch);
  let n = 0;
  for (let oid = local; oid && oid !== origin && n < 1000; n++) oid = (await g.readCommit(s.git, oid)).parent[0] ?? null;
  return n;
}

/** The sync of one server: host calls with a fresh token, the sync itself, and when each clone last fetched. */
export function createSync(deps: { vcs: VcsConfig; store: PkStore; oauth: HostOAuth | null }) {
  const http: HttpClient = g.httpClient(deps.vcs.timeoutSeconds * 1000);
  const gitUser = deps.vcs.host?.gitUsername ?? 'oauth2';
  /** When each person's clone last fetched from the host (reads fetch again after VCS_PULL_INTERVAL_SECONDS). */
  const lastFetch = new Map<string, number>();

  const basicAuth = (token: string) => ({ Authorization: `Basic ${Buffer.from(`${gitUser}:${token}`).toString('base64')}` });

  async function renew(s: Session): Promise<void> {
    s.refreshed = true;
    const tokens = await deps.oauth!.refresh(s.tokens!);
    await deps.store.updateTokens(s.row.user_id, tokens);
    s.tokens = tokens;
  }

  /** Calls the host with the access token, renewing it first when it is about to expire, or once after a 401. */
  async function withHost<T>(s: Session, fn: (headers: Record<string, string>) => Promise<T>): Promise<T> {
    if (!s.tokens) throw new HostError('unauthorized', 'no usable access token is stored for the host');
    const canRenew = () => !!(deps.oauth && s.tokens?.refresh_token && !s.refreshed);
    if (s.tokens.expires_at && Date.parse(s.tokens.expires_at) - 60_000 < Date.now() && canRenew()) await renew(s);
    try {
      return await fn(basicAuth(s.tokens.access_token));
    } catch (err) {
      if (!(err instanceof HostError && err.kind === 'unauthorized' && canRenew())) throw err;
      await renew(s);
      return fn(basicAuth(s.tokens.access_token));
    }
  }

  async function synced(s: Session): Promise<void> {
    lastFetch.set(s.row.user_id, Date.now());
    s.row.last_sync_at = await deps.store.markSynced(s.row.user_id);
  }

  /** Brings the local clone and the host together: fetch, fast-forward or replay, push what is pending. */
  async function syncLocked(s: Session): Promise<void> {
    const { gitdir } = s.git;
    const branch = s.row.branch;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { tip: remoteTip } = await withHost(s, (h) => g.fetchOrigin(s.git, http, h, branch));
      const local = await g.resolveBranch(gitdir, branch);
      let target = local;
      if (!local && !remoteTip) return synced(s);
      if (remoteTip && (!local || local === remoteTip || (await g.isDescendent(s.git, remoteTip, local)))) {
        await g.setBranch(gitdir, branch, remoteTip);
        return synced(s);
      }
      if (remoteTip && local && !(await g.isDescendent(s.git, local, remoteTip))) {
        target = await replay(s, local, remoteTip);
        await g.setBranch(gitdir, branch, target);
        if (target === remoteTip) return synced(s);
      }
      try {
        await withHost(s, (h) => g.pushOrigin(s.git, http, h, branch));
      } catch (err) {
        if (err instanceof HostError && err.kind === 'conflict') continue;
        throw err;
      }
      return synced(s);
    }
    throw new HostError('conflict', 'the branch kept moving on the host');
  }

  async function hostFailed(s: Session, err: HostError): Promise<Freshness> {
    await deps.store.markError(s.row.user_id, err.kind, err.message);
    return { stale: true, sync_error: err.message };
  }

  /** Before a read: fetch when the last one is older than VCS_PULL_INTERVAL_SECONDS; on failure, read what is here. */
  async function pullIfStale(s: Session): Promise<Freshness> {
    if (!s.remote) return { stale: false, sync_error: null };
    const last = lastFetch.get(s.row.user_id) ?? 0;
    if (Date.now() - last < deps.vcs.pullIntervalSeconds * 1000) return { stale: false, sync_error: null };
    try {
      await syncLocked(s);
      return { stale: false, sync_error: null };
    } catch (err) {
      if (!(err instanceof HostError)) throw err;
      lastFetch.set(s.row.user_id, Date.now()); // a host that is down is asked again after the interval, not on every read
      return hostFailed(s, err);
    }
  }

  return {
    http,
    withHost,
    syncLocked,
    pullIfStale,
    hostFailed,
    countUnpushed,
    fetched: (userId: string) => lastFetch.set(userId, Date.now()),
    forget: (userId: string) => lastFetch.delete(userId),
  };
}

export type Sync = ReturnType<typeof createSync>;
