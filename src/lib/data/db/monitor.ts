// Whether the database answers, as /api/health and /api/ready report it: a probe every few seconds (on a
// connection of its own, so a busy pool does not look like an outage), and at once after a request met an
// outage error. The state is read synchronously, so the health routes never wait for the database.
import type { Db } from './types.ts';
import { databaseUnavailable } from './unavailable.ts';

export interface DbState {
  ok: boolean;
  /** Why the database is unavailable, when it is. */
  reason?: string;
  /** Since when (ISO 8601) it is unavailable. */
  since?: string;
}

export interface DbMonitor {
  state(): DbState;
  /** A request met `err`: when it says the database is unavailable, probe now rather than at the next tick. */
  noticed(err: unknown): void;
  stop(): void;
}

/**
 * @example const monitor = monitorDatabase(db, { log }); monitor.state() // { ok: true }
 */
export function monitorDatabase(db: Db, opts: { intervalMs?: number; timeoutMs?: number; log?: (m: string) => void; now?: () => Date } = {}): DbMonitor {
  const log = opts.log ?? ((m: string) => console.error(m));
  const now = opts.now ?? (() => new Date());
  let state: DbState = { ok: true };
  let probing = false;
  const probe = () => {
    if (probing) return;
    probing = true;
    db.ping(opts.timeoutMs ?? 1000)
      .then(() => {
        if (!state.ok) log(`database: reachable again (unavailable since ${state.since})`);
        state = { ok: true };
      })
      .catch((err: Error) => {
        const reason = databaseUnavailable(err) ?? err.message;
        if (state.ok) log(`database: unavailable (${reason}); writes and database reads answer 503 until it is back`);
        state = state.ok ? { ok: false, reason, since: now().toISOString() } : { ...state, reason };
      })
      .finally(() => (probing = false));
  };
  const timer = setInterval(probe, opts.intervalMs ?? 2000).unref();
  return {
    state: () => state,
    noticed(err) {
      if (databaseUnavailable(err)) probe();
    },
    stop: () => clearInterval(timer),
  };
}
