// Which database errors are an outage rather than a bug: the server cannot be reached or was restarted
// under a statement, a connection was lost, or a lock or statement waited past its timeout. A request that
// meets one answers 503 with Retry-After (api/errors/index.ts), a background timer logs it and tries again
// at its next tick; neither is a 500 or the end of the process.

/** SQLSTATEs (and classes) that say "not now" (PostgreSQL Appendix A). */
const UNAVAILABLE_STATES: Record<string, string> = {
  '08': 'the connection to the database failed', // connection_exception and its subclasses
  '57P01': 'the database is shutting down', // admin_shutdown
  '57P02': 'the database is restarting', // crash_shutdown
  '57P03': 'the database is starting', // cannot_connect_now
  '53300': 'the database has no connection to spare', // too_many_connections
  '55P03': 'a lock was held longer than the lock timeout', // lock_not_available
  '57014': 'a statement ran past its timeout', // query_canceled (statement_timeout)
  '40001': 'a transaction conflicted with another', // serialization_failure
  '40P01': 'a transaction deadlocked with another', // deadlock_detected
};
/** Node's network errors, as pg reports a server it cannot reach. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Why `err` means the database is unavailable for now, or null when it is some other error. */
export function databaseUnavailable(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') {
    // PG_CONNECT_TIMEOUT_MS passed: no connection of the pool came free ("timeout exceeded when trying to
    // connect"), or a new one was not opened in time (the pool's: "Connection terminated due to connection
    // timeout"; a client of its own, the listener's or the migration lock's: "timeout expired").
    if (/timeout exceeded when trying to connect|terminated due to connection timeout|^timeout expired$/i.test(err.message)) return 'no database connection could be had in time (all busy, or the database slow to answer)';
    return /Connection terminated|connection (?:was )?lost|encountered a connection error/i.test(err.message) ? 'the connection to the database was lost' : null;
  }
  if (NETWORK_CODES.has(code)) return 'the database cannot be reached';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'the database is busy';
  return UNAVAILABLE_STATES[code] ?? UNAVAILABLE_STATES[code.slice(0, 2)] ?? null;
}

/** Seconds a client waits before trying again. */
export const RETRY_AFTER_SECONDS = 2;
