// The notes of one person, in their repository: a bare local clone per person (DATA_DIR/personal-knowledge/
// clones) kept in step with the host, or, with no host configured, a bare repository on this server that
// plays the host (…/hosted). Operations on one person's repository run one at a time. A write fetches
// first, checks the client's base blob against the host's version, commits, and pushes; when the host is
// unreachable or refuses, the commit stays in the local clone and a later write or sync pushes it.
// The repositories themselves are in repositories.ts, connecting and disconnecting in connection.ts.
import type { User } from '../../src/lib/data/identity/index.ts';
import { ApiError } from '../errors/index.ts';
import * as g from './git.ts';
import { HostError, type Signature } from './git.ts';
import { titleOf } from './slug.ts';
import { createSync, MAX_ATTEMPTS, type Sync } from './sync.ts';
import { lastChanges, noteHistory, titleFor } from './history.ts';
import { personRepositories, type NoteOut, type NotesDeps, type Repositories } from './repositories.ts';
import { connections, remoteConnector } from './connection.ts';

export type { NoteOut, NotesDeps } from './repositories.ts';

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
        return { items, total: items.length, last_sync: s.row.last_sync_at, ...fresh };
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
          await hostFailed(s, err);
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
          await deps.store.recordNoteChange(userId, { slug, action, commit, pushed: true });
          return { ...result, pushed: true };
        }
        let failure = offline;
        if (!failure) {
          try {
            await withHost(s, (h) => g.pushOrigin(s.git, http, h, branch));
            sync.fetched(userId);
            await deps.store.recordNoteChange(userId, { slug, action, commit, pushed: true });
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
        await deps.store.recordNoteChange(userId, { slug, action, commit, pushed: false }, { kind: failure.kind, message: failure.message });
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

export type NotesService = ReturnType<typeof createNotesService>;
