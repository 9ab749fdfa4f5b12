// A person's note repository connection: its status, connecting a host repository (kept, or cloned afresh
// beside the old clone and swapped in) or the embedded store on this server, and disconnecting.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors/index.ts';
import * as g from './git.ts';
import { HostError } from './git.ts';
import { ConnectError } from './oauth-client.ts';
import type { ConnectionRow, HostTokens } from '../../src/lib/data/personal-knowledge/store.ts';
import type { Session, Sync } from './sync.ts';
import type { NotesDeps, Repositories } from './repositories.ts';

/** The connection: its status, connecting the embedded store, and disconnecting. */
export function connections(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { gitdirOf, serialize, sessionFor } = repos;
  const { syncLocked, countUnpushed } = sync;
  return {
    async status(userId: string) {
      const row = await deps.store.connection(userId);
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
        const row = await deps.store.connection(userId);
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
        await deps.store.deleteConnection(userId);
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
export function remoteConnector(deps: NotesDeps, sync: Sync, repos: Repositories) {
  const { gitdirOf, serialize, sessionFor } = repos;
  const { http, withHost, syncLocked, hostFailed, countUnpushed } = sync;
  return (userId: string, input: { host: string; repository: string; tokens: HostTokens }) =>
    serialize(userId, async () => {
      const final = gitdirOf(userId, 'remote');
      const before = await deps.store.connection(userId);
      if (before?.mode === 'remote' && before.repository === input.repository && fs.existsSync(final)) {
        const row = await deps.store.saveConnection({ userId, mode: 'remote', host: input.host, repository: input.repository, branch: before.branch, tokens: input.tokens });
        const s = sessionFor(row);
        await syncLocked(s).catch(async (err) => {
          if (err instanceof HostError) await hostFailed(s, err);
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
        const row = await deps.store.saveConnection({ userId, mode: 'remote', host: input.host, repository: input.repository, branch, tokens: input.tokens });
        fs.rmSync(final, { recursive: true, force: true });
        fs.renameSync(tmp, final);
        sync.fetched(userId);
        return row;
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
}
