// The PostgreSQL connections of one process, in a worker thread: api/db/postgres.ts calls it through
// synckit, which blocks the caller until the answer is back. Each open database has its own connection
// here (a transaction needs one connection for all its statements). Errors come back as plain data, so
// the SQLSTATE code survives the trip between threads.
import pg from 'pg';
import { runAsWorker } from 'synckit';
import { CONNECTION_LOST, type PgAnswer, type PgOp } from './pg-protocol.ts';

// Values as better-sqlite3 gives them, so the same code reads both databases: bigint and numeric as
// numbers (counts, seqs and epoch seconds are far below 2^53), booleans as 1 and 0.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.BOOL, (v) => (v === 't' ? 1 : 0));

const clients = new Map<number, { client: pg.Client; lost?: Error }>();

function bind(values: unknown[]): unknown[] {
  // Buffers cross the thread boundary as plain Uint8Arrays; pg sends only Buffers as bytea.
  return values.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
}

async function handle(op: PgOp): Promise<PgAnswer> {
  if (op.op === 'connect') {
    // Also a reconnection: the caller asks for it only outside a transaction (api/db/postgres.ts).
    clients.get(op.id)?.client.end().catch(() => {});
    const client = new pg.Client({ connectionString: op.url, application_name: op.applicationName });
    const entry: { client: pg.Client; lost?: Error } = { client };
    // A connection the server dropped fails the next call with this error, not the whole process.
    client.on('error', (err) => (entry.lost = err));
    await client.connect();
    // A writer waits at most 30 s for the write lock (then its request fails, instead of hanging), and an
    // instance that stalls inside a transaction loses it, and the lock, after 60 s.
    await client.query("SET lock_timeout = '30s'; SET idle_in_transaction_session_timeout = '60s'");
    clients.set(op.id, entry);
    return { ok: true, rows: [], rowCount: 0 };
  }
  const entry = clients.get(op.id);
  if (!entry) throw new Error('the database connection is closed');
  // Known lost before anything was sent: the statement did not run, so the caller may reconnect and retry.
  if (entry.lost) return { ok: false, message: `the database connection was lost: ${entry.lost.message}`, code: CONNECTION_LOST };
  if (op.op === 'close') {
    clients.delete(op.id);
    await entry.client.end();
    return { ok: true, rows: [], rowCount: 0 };
  }
  const r = op.op === 'exec' ? await entry.client.query(op.sql) : await entry.client.query({ text: op.text, values: bind(op.values), name: op.name });
  // A multi-statement exec answers with one result per statement; nothing reads those.
  if (Array.isArray(r)) return { ok: true, rows: [], rowCount: 0 };
  return { ok: true, rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount ?? 0 };
}

runAsWorker(async (op: PgOp): Promise<PgAnswer> => {
  try {
    return await handle(op);
  } catch (err) {
    const e = err as pg.DatabaseError;
    return { ok: false, message: e.message, code: e.code, detail: e.detail, constraint: e.constraint };
  }
});
