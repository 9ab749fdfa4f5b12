// LISTEN/NOTIFY on PostgreSQL: how one instance hears of another's writes (migrations/postgres/
// 012_shared_state.sql names the channels). A connection of its own, apart from the pool; it reconnects
// after a drop, and calls `onChange` with null then (resync everything), since notifications sent while
// it was away are lost.
import pg from 'pg';

export interface Listener {
  close(): Promise<void>;
}

/**
 * Calls `onChange` (at most once per `debounceMs`) with the distinct payloads of the notifications on
 * `channel` since the last call, in order; with null after each reconnection (what was missed is unknown).
 * @example const l = await listen(config.databaseUrl, 'kb_posts', (ids) => ids ? refreshPublishedPosts(search(), posts, ids) : syncPublishedPosts(search(), posts), log, pgOptions(config))
 */
export async function listen(
  url: string,
  channel: string,
  onChange: (payloads: string[] | null) => void | Promise<void>,
  log: (m: string) => void,
  opts: { debounceMs?: number; /** PG_CONNECT_TIMEOUT_MS: a connection not open by then fails (and is tried again). */ connectTimeoutMs?: number } = {},
): Promise<Listener> {
  const debounceMs = opts.debounceMs ?? 100;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** The payloads heard since the last call; null when everything must be read again. */
  let pending: Set<string> | null = new Set();
  const fire = (payload: string | null) => {
    if (closed) return;
    if (payload === null) pending = null;
    else pending?.add(payload);
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      const heard = pending;
      pending = new Set();
      Promise.resolve()
        .then(() => onChange(heard === null ? null : [...heard]))
        .catch((err) => log(`listen ${channel}: ${(err as Error).message}`));
    }, debounceMs);
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, application_name: `kb-listen-${channel}`, connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000 });
    c.on('notification', (n) => fire(n.payload ?? null));
    c.on('error', (err) => {
      log(`listen ${channel}: connection lost (${err.message}); reconnecting`);
      c.end().catch(() => {});
      if (client === c) client = null;
      if (!closed) retry = setTimeout(reconnect, 1000);
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
  };
  const reconnect = () => {
    retry = undefined;
    connect()
      .then(() => fire(null))
      .catch((err) => {
        log(`listen ${channel}: ${(err as Error).message}; retrying`);
        if (!closed) retry = setTimeout(reconnect, 2000);
      });
  };
  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
