// The notes of one person, in their repository: a bare local clone per person (DATA_DIR/personal-knowledge/
// clones) kept in step with the host, or, with no host configured, a bare repository on this server that
// plays the host (…/hosted). Operations on one person's repository run one at a time. A write fetches
// first, checks the client's base blob against the host's version, commits, and pushes; when the host is
// unreachable or refuses, the commit stays in the local clone and a later write or sync pushes it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { User } from '../auth/identity.ts';
import type { VcsConfig } from '../../src/lib/config.ts';
import { ApiError } from '../errors/index.ts';
import * as g from './git.ts';
import { HostError, type Signature } from './git.ts';
import { ConnectError, type HostOAuth, type HostTokens } from './oauth-client.ts';
import type { ConnectionRow, PkStore } from './store.ts';
import { titleOf } from './slug.ts';
import { createSync, MAX_ATTEMPTS, type Session, type Sync } from './sync.ts';
import { lastChanges, noteHistory, titleFor } from './history.ts';

export interface NotesDeps {
  dataDir: string;
  vcs: VcsConfig;
  store: PkStore;
  oauth: HostOAuth | null;
  siteName: string;
  baseUrl: string;
}

export interface NoteOut {
  slug: string;
  title: string;
  content: string;
  /** Git blob id of the content: send it back as If-Match (or base_blob) to update the note. */
  blob: string;
  updated: string | null;
  commit: string | null;
  /** The note's id in the public audit log (a pseudonym: the slug stays private). */
  audit_subject: string;
}

/** What the client's write was based on: nothing said, "must not exist yet", "must exist", or a blob id it read. */
export type Precondition = { kind: 'none' } | { kind: 'absent' } | { kind: 'exists' } | { kind: 'blob'; blob: string };

/** The write did not apply because the note is not what the client based it on: both versions, for merging. */
export class NoteConflict extends Error {
  readonly status: 409 | 428;
  readonly current: NoteOut | null;
  readonly yours: { slug: string; base_blob: string | null; content: string | null; blob: string | null };
  constructor(status: 409 | 428, message: string, current: NoteOut | null, yours: NoteConflict['yours']) {
    super(message);
    this.status = status;
    this.current = current;
    this.yours = yours;
  }
}

/** The host failed; `saved` says what stays committed on this server until a push succeeds. */
export class HostUnavailable extends Error {
  readonly hostError: HostError;
  readonly saved: { commit: string; blob: string | null } | null;
  constructor(hostError: HostError, saved: HostUnavailable['saved']) {
    super(hostError.message);
    this.hostError = hostError;
    this.saved = saved;
  }
}

const notConnected = () =>
  new ApiError(404, 'Personal knowledge is not connected: connect a repository at GET /api/auth/vcs/begin', {}, 'The person connects a note repository once, in a browser session: the account page (/account) or GET /api/auth/vcs/begin. An API key or OAuth token cannot connect one.');

type Repositories = ReturnType<typeof personRepositories>;

/** The notes service: one person's notes (read, written, synced) and their repository's connection. */
export function createNotesService(deps: NotesDeps) {
  const sync = createSync(deps);
  const repos = personRepositories(deps, sync);
  return {
    ...noteReads(deps, sync, repos),
    ...noteWrites(deps, sync, repos),
    ...connections(deps, sync, repos),
    connectRemote: remoteConnector(deps, sync, repos),
  };
}

/** Each person's repository: where it lives, one operation at a time on it, and a session over it. */
function personRepositories(deps: NotesDeps, sync: Sync) {
  const root = path.join(deps.dataDir, 'personal-knowledge');
  const queues = new Map<string, Promise<unknown>>();

  function gitdirOf(userId: string, mode: 'remote' | 'embedded'): string {
    // User ids are generated (usr_ + base32); refuse anything else rather than build a path from it.
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(userId)) throw new Error('unexpected user id');
    return path.join(root, mode === 'remote' ? 'clones' : 'hosted', `${userId}.git`);
  }

  /** Runs `fn` after every earlier operation on this person's repository has finished. */
  function serialize<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(userId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(
      () => {},
      () => {},
    );
    queues.set(userId, tail);
    void tail.then(() => {
      if (queues.get(userId) === tail) queues.delete(userId);
    });
    return run;
  }

  function sessionFor(row: ConnectionRow): Session {
    const remote = row.mode === 'remote';
    return { row, git: { gitdir: gitdirOf(row.user_id, row.mode), cache: {} }, remote, tokens: remote ? deps.store.tokensOf(row) : null, refreshed: false };
  }

  function withSession<T>(userId: string, fn: (s: Session) => Promise<T>): Promise<T> {
    return serialize(userId, async () => {
      const row = deps.store.connection(userId);
      if (!row) throw notConnected();
      const s = sessionFor(row);
      await ensureRepository(s);
      return fn(s);
    });
  }

  /** The local clone is a cache: when it is missing (cleaned up, a crash while connecting), start it again. */
  async function ensureRepository(s: Session): Promise<void> {
    if (fs.existsSync(path.join(s.git.gitdir, 'HEAD'))) return;
    await g.initRepo(s.git.gitdir, s.row.branch);
    if (s.remote) await g.setOrigin(s.git.gitdir, s.row.repository);
    sync.forget(s.row.user_id);
  }

  /** One note as the API returns it, with its last change as of `tip`. */
  async function noteOut(s: Session, tip: string | null, slug: string, blob: string): Promise<NoteOut> {
    const content = await g.readText(s.git, blob);
    const changed = (await lastChanges(s.git, tip)).get(slug);
    return { slug, title: titleOf(content, slug), content, blob, updated: changed?.time ?? null, commit: changed?.commit ?? null, audit_subject: deps.store.cipher.notePseudonym(s.row.user_id, slug) };
  }

  return { gitdirOf, serialize, sessionFor, withSession, noteOut };
}

function checkPrecondition(pre: Precondition, currentBlob: string | null, isDelete: boolean): { status: 409 | 428; message: string } | null {
  switch (pre.kind) {
    case 'none':
      return !isDelete && currentBlob ? { status: 428, message: 'The note exists: send the blob id you read (If-Match or base_blob) to update it' } : null;
    case 'absent':
      return currentBlob ? { status: 409, message: 'The note already exists (it may have been created on the host): merge with the current version and send its blob id' } : null;
    case 'exists':
      return currentBlob ? null : { status: 409, message: 'The note no longer exists (it may have been deleted on the host)' };
    case 'blob':
      return currentBlob === pre.blob ? null : { status: 409, message: 'The note changed since you read it (on the host or elsewhere): merge with the current version and send its blob id' };
  }
}

/** Reading: the list, one note, the history, and a sync on demand. */
function noteReads(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { withSession, noteOut } = repos;
  const { syncLocked, pullIfStale, hostFailed } = sync;
  return {
    list(userId: string) {
      return withSession(userId, async (s) => {
        const fresh = await pullIfStale(s);
        const tip = await g.resolveBranch(s.git.gitdir, s.row.branch);
        const changes = await lastChanges(s.git, tip);
        const items = [];
        for (const [slug, blob] of await g.notesAt(s.git, tip)) {
          items.push({ slug, title: await titleFor(s.git, blob, slug), updated: changes.get(slug)?.time ?? null, blob });
        }
        items.sort((a, b) => (b.updated ?? '').localeCompare(a.updated ?? '') || a.slug.localeCompare(b.slug));
        return { items, total: items.length, last_sync: deps.store.connection(userId)?.last_sync_at ?? null, ...fresh };
      });
    },

    read(userId: string, slug: string) {
      return withSession(userId, async (s) => {
        const fresh = await pullIfStale(s);
        const tip = await g.resolveBranch(s.git.gitdir, s.row.branch);
        const blob = (await g.notesAt(s.git, tip)).get(slug);
        if (!blob) throw new ApiError(404, 'Note not found', {}, 'GET /api/me/personal-knowledge/notes lists your notes by slug.');
        return { ...(await noteOut(s, tip, slug, blob)), ...fresh };
      });
    },

    /** Commits that touched notes, newest first, one item per note changed; `slug` scopes to one note. */
    history(userId: string, opts: { limit: number; slug?: string }) {
      return withSession(userId, async (s) => {
        await pullIfStale(s);
        return noteHistory(s.git, await g.resolveBranch(s.git.gitdir, s.row.branch), opts);
      });
    },

    /** Pushes what is pending and fetches what is new, now. */
    sync(userId: string) {
      return withSession(userId, async (s) => {
        if (!s.remote) return;
        try {
          await syncLocked(s);
        } catch (err) {
          if (!(err instanceof HostError)) throw err;
          hostFailed(s, err);
          throw new HostUnavailable(err, null);
        }
      });
    },
  };
}

/** Writing: create, update and delete, each one commit (as described at the top of this file). */
function noteWrites(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { withSession, noteOut } = repos;
  const { http, withHost, syncLocked } = sync;
  const mailHost = new URL(deps.baseUrl).hostname;

  function signatureOf(user: User): Signature {
    // Not the person's e-mail: the repository may be public, and git history is forever.
    return { name: user.display_name, email: `${user.handle}@users.noreply.${mailHost}`, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
  }

  /** Creates, updates (content) or deletes (null) one note in one commit, as described at the top of this file. */
  async function change(userId: string, user: User, slug: string, content: string | null, pre: Precondition, note: string | undefined) {
    return withSession(userId, async (s) => {
      const { gitdir } = s.git;
      const branch = s.row.branch;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        let offline: HostError | null = null;
        if (s.remote) {
          try {
            await syncLocked(s);
          } catch (err) {
            if (!(err instanceof HostError)) throw err;
            if (err.kind === 'conflict') throw new ApiError(409, 'The repository kept changing on the host; try again');
            offline = err; // decide on what this server has; the host gets it later
          }
        }
        const tip = await g.resolveBranch(gitdir, branch);
        const currentBlob = (await g.notesAt(s.git, tip)).get(slug) ?? null;
        const newBlob = content === null ? null : await g.blobIdOf(content);
        const refused = checkPrecondition(pre, currentBlob, content === null);
        if (refused) {
          const current = currentBlob ? await noteOut(s, tip, slug, currentBlob) : null;
          throw new NoteConflict(refused.status, refused.message, current, { slug, base_blob: pre.kind === 'blob' ? pre.blob : null, content, blob: newBlob });
        }
        if (content === null && !currentBlob) throw new ApiError(404, 'Note not found', {}, 'GET /api/me/personal-knowledge/notes lists your notes by slug.');
        if (newBlob !== null && newBlob === currentBlob) {
          const changed = (await lastChanges(s.git, tip)).get(slug);
          return { slug, blob: newBlob, commit: changed?.commit ?? tip, action: 'unchanged' as const, pushed: !offline, title: titleOf(content!, slug) };
        }
        const action = content === null ? ('delete' as const) : currentBlob ? ('update' as const) : ('create' as const);
        if (content !== null) await g.writeText(s.git, content);
        const verb = { create: 'Create', update: 'Update', delete: 'Delete' }[action];
        const message = `${verb} note ${slug}\n\n${note ? `${note}\n\n` : ''}Saved through ${deps.siteName}.\n`;
        const commit = await g.commitNotes(s.git, tip, [{ slug, blob: newBlob }], message, signatureOf(user));
        await g.setBranch(gitdir, branch, commit);
        const result = { slug, blob: newBlob, commit, action, title: content === null ? null : titleOf(content, slug) };
        if (!s.remote) {
          deps.store.recordNoteChange(userId, { slug, action, commit, pushed: true });
          return { ...result, pushed: true };
        }
        let failure = offline;
        if (!failure) {
          try {
            await withHost(s, (h) => g.pushOrigin(s.git, http, h, branch));
            sync.fetched(userId);
            deps.store.recordNoteChange(userId, { slug, action, commit, pushed: true });
            return { ...result, pushed: true };
          } catch (err) {
            if (!(err instanceof HostError)) throw err;
            if (err.kind === 'conflict') {
              await g.setBranch(gitdir, branch, tip); // the host moved in between: take ours back and decide again
              continue;
            }
            failure = err;
          }
        }
        deps.store.recordNoteChange(userId, { slug, action, commit, pushed: false }, { kind: failure.kind, message: failure.message });
        throw new HostUnavailable(failure, { commit, blob: newBlob });
      }
      throw new ApiError(409, 'The repository kept changing on the host; try again');
    });
  }

  return {
    write: (userId: string, user: User, slug: string, content: string, pre: Precondition, message?: string) => change(userId, user, slug, content, pre, message),
    remove: (userId: string, user: User, slug: string, pre: Precondition) => change(userId, user, slug, null, pre, undefined),
  };
}

/** The connection: its status, connecting the embedded store, and disconnecting. */
function connections(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { gitdirOf, serialize, sessionFor } = repos;
  const { syncLocked, countUnpushed } = sync;
  return {
    async status(userId: string) {
      const row = deps.store.connection(userId);
      if (!row) {
        return { connected: false, status: 'not_connected', mode: deps.vcs.host ? 'remote' : 'embedded', host: deps.vcs.host?.hostName ?? 'this server', repository: null, branch: null, since: null, last_sync: null, last_error: null, unpushed_commits: 0 };
      }
      const unpushed = await serialize(userId, () => countUnpushed(sessionFor(row)).catch(() => 0));
      return {
        connected: true,
        status: row.status,
        mode: row.mode,
        host: row.host,
        repository: row.repository,
        branch: row.branch,
        since: row.connected_at,
        last_sync: row.last_sync_at,
        last_error: row.last_error ? { kind: row.last_error_kind, message: row.last_error, at: row.last_error_at } : null,
        unpushed_commits: unpushed,
      };
    },

    /** Connects the embedded store: the person's bare repository on this server, created on first connect. */
    connectEmbedded(userId: string) {
      return serialize(userId, async () => {
        const gitdir = gitdirOf(userId, 'embedded');
        if (!fs.existsSync(path.join(gitdir, 'HEAD'))) await g.initRepo(gitdir, deps.vcs.branch);
        const head = fs.readFileSync(path.join(gitdir, 'HEAD'), 'utf8').trim();
        const branch = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1] ?? deps.vcs.branch;
        return deps.store.saveConnection({ userId, mode: 'embedded', host: 'this server', repository: path.relative(deps.dataDir, gitdir), branch, tokens: null });
      });
    },

    /**
     * Disconnects: pushes what is pending if the host lets us, asks the host to revoke the token, erases it
     * and the local clone. Changes the host does not have yet are only erased when the caller says so (409
     * otherwise). The embedded store's repository stays, as a host's would.
     */
    disconnect(userId: string, opts: { discardUnpushed: boolean }) {
      return serialize(userId, async () => {
        const row = deps.store.connection(userId);
        if (!row) return false;
        if (row.mode === 'remote') {
          const s = sessionFor(row);
          if ((await countUnpushed(s).catch(() => 0)) > 0) await syncLocked(s).catch(() => {});
          const waiting = await countUnpushed(s).catch(() => 0);
          if (waiting > 0 && !opts.discardUnpushed) {
            throw new ApiError(
              409,
              `${waiting} change(s) are saved on this server but not yet at the host (${row.last_error ?? 'the host refused them'}). ` +
                'Reconnect at GET /api/auth/vcs/begin to push them, or disconnect with ?discard_unpushed=true to erase them.',
            );
          }
          if (s.tokens && deps.oauth) await deps.oauth.revoke(s.tokens).catch(() => {});
        }
        deps.store.deleteConnection(userId);
        if (row.mode === 'remote') fs.rmSync(gitdirOf(userId, 'remote'), { recursive: true, force: true });
        sync.forget(userId);
        return true;
      });
    },
  };
}

/**
 * Connects (or reconnects) a host repository: a reconnect to the same repository keeps the local clone and
 * whatever it holds that the host does not have yet; otherwise the repository is cloned afresh beside the
 * old clone and swapped in only once the connection is stored.
 */
function remoteConnector(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { gitdirOf, serialize, sessionFor } = repos;
  const { http, withHost, syncLocked, hostFailed, countUnpushed } = sync;
  return (userId: string, input: { host: string; repository: string; tokens: HostTokens }) =>
    serialize(userId, async () => {
      const final = gitdirOf(userId, 'remote');
      const before = deps.store.connection(userId);
      if (before?.mode === 'remote' && before.repository === input.repository && fs.existsSync(final)) {
        const row = deps.store.saveConnection({ userId, mode: 'remote', host: input.host, repository: input.repository, branch: before.branch, tokens: input.tokens });
        const s = sessionFor(row);
        await syncLocked(s).catch((err) => {
          if (err instanceof HostError) hostFailed(s, err);
          else throw err;
        });
        return row;
      }
      if (before?.mode === 'remote' && fs.existsSync(final)) {
        const waiting = await countUnpushed(sessionFor(before)).catch(() => 0);
        // Another repository (another host account): the old clone would be dropped with changes only it has.
        if (waiting > 0) throw new ConnectError('unpushed_changes', `${waiting} change(s) of ${before.repository} are not at the host yet`);
      }
      fs.mkdirSync(path.dirname(final), { recursive: true });
      const tmp = path.join(path.dirname(final), `.tmp-${randomBytes(8).toString('hex')}.git`);
      try {
        await g.initRepo(tmp, deps.vcs.branch);
        await g.setOrigin(tmp, input.repository);
        const s: Session = { row: { user_id: userId } as ConnectionRow, git: { gitdir: tmp, cache: {} }, remote: true, tokens: input.tokens, refreshed: true };
        const fetched = await withHost(s, (h) => g.fetchOrigin(s.git, http, h));
        const branch = fetched.branch ?? deps.vcs.branch;
        if (fetched.tip) await g.setBranch(tmp, branch, fetched.tip);
        await g.setHead(tmp, branch);
        const row = deps.store.saveConnection({ userId, mode: 'remote', host: input.host, repository: input.repository, branch, tokens: input.tokens });
        fs.rmSync(final, { recursive: true, force: true });
        fs.renameSync(tmp, final);
        sync.fetched(userId);
        return row;
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
}

export type NotesService = ReturnType<typeof createNotesService>;
