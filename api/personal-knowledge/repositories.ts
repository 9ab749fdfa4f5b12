// Each person's note repository on this server: a bare local clone per person (DATA_DIR/personal-knowledge/
// clones) kept in step with the host, or, with no host configured, a bare repository that plays the host
// (…/hosted); operations on one person's repository run one at a time, each in a session over it.
import fs from 'node:fs';
import path from 'node:path';
import type { VcsConfig } from '../../src/lib/config.ts';
import { ApiError } from '../errors/index.ts';
import * as g from './git.ts';
import type { HostOAuth } from './oauth-client.ts';
import type { ConnectionRow, PkStore } from '../../src/lib/data/personal-knowledge/store.ts';
import { titleOf } from './slug.ts';
import type { Session, Sync } from './sync.ts';
import { lastChanges } from './history.ts';

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

const notConnected = () =>
  new ApiError(404, 'Personal knowledge is not connected: connect a repository at GET /api/auth/vcs/begin', {}, 'The person connects a note repository once, in a browser session: the account page (/account) or GET /api/auth/vcs/begin. An API key or OAuth token cannot connect one.');

/** Each person's repository: where it lives, one operation at a time on it, and a session over it. */
export function personRepositories(deps: NotesDeps, sync: Sync) {
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
      const row = await deps.store.connection(userId);
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

export type Repositories = ReturnType<typeof personRepositories>;
