// The data layer's database (src/lib/data/db): one asynchronous interface over better-sqlite3 and a
// pg.Pool. What the stores rely on, on both: placeholders, plucked values, numbers and Buffers as SQLite
// returns them, ambient transactions that roll back whole (savepoints when nested) and that other callers
// neither see nor join before they commit, errors with their SQLSTATE, migrations that run once when
// several openers race; on PostgreSQL also transactions that run side by side until they take the write
// lock, a lock wait bounded by the lock timeout, and a pool that outlives its connections.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPostgres } from '../../../src/lib/data/db/translate.ts';
import { migrationFiles, openDatabase, pgOptions, type Db } from '../../../src/lib/data/db/index.ts';
import { listen } from '../../../src/lib/data/db/listen.ts';
import { PgError } from '../../../src/lib/data/db/errors.ts';
import { PgDb } from '../../../src/lib/data/db/postgres.ts';
import { loadConfig } from '../../../src/lib/config.ts';
import { databaseUnavailable } from '../../../src/lib/data/db/unavailable.ts';
import { describePostgres, startPostgres, type PgCluster } from '../../helpers/postgres.ts';

describe('SQL written once, translated for PostgreSQL', () => {
  it('numbers ? placeholders and names @name ones, reusing a repeated name', () => {
    expect(toPostgres('SELECT * FROM t WHERE a = ? AND b = ?')).toEqual({ text: 'SELECT * FROM t WHERE a = $1 AND b = $2', names: [], positional: 2 });
    expect(toPostgres('UPDATE t SET a = @a WHERE id = @id OR parent = @id')).toEqual({ text: 'UPDATE t SET a = $1 WHERE id = $2 OR parent = $2', names: ['a', 'id'], positional: 0 });
    expect(toPostgres('SELECT ?2, ?1, ?2').text).toBe('SELECT $2, $1, $2');
  });

  it('leaves string literals, quoted names, comments and casts alone', () => {
    const sql = `SELECT 'a ? @b' || "col?" FROM t -- where ?\nWHERE x = ? /* @y */ AND z::text = 'it''s ?'`;
    expect(toPostgres(sql).text).toBe(`SELECT 'a ? @b' || "col?" FROM t -- where ?\nWHERE x = $1 /* @y */ AND z::text = 'it''s ?'`);
  });

  it('renames group_concat, and only as a function', () => {
    expect(toPostgres("SELECT group_concat(s, ' ') AS group_concat FROM t").text).toBe("SELECT string_agg(s, ' ') AS group_concat FROM t");
  });

  it('refuses a statement that mixes placeholder styles', () => {
    expect(() => toPostgres('SELECT ? , @a')).toThrow(/mixes/);
  });

  it('has a PostgreSQL migration for every SQLite one, number for number', () => {
    const names = (d: 'sqlite' | 'postgres') => migrationFiles(d).map((m) => m.file);
    expect(names('postgres')).toEqual(names('sqlite'));
  });
});


/** What both databases must do alike; `open` gives a fresh database with a table t. */
function sharedBehaviour(name: string, open: () => Promise<Db>) {
  describe(`${name}: the asynchronous interface`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('gives rows as SQLite does: numbers, Buffers, 1/0 for booleans, plucked values', async () => {
      await db.prepare('INSERT INTO t (id, name, h, score) VALUES (@id, @name, @h, @score)').run({ id: 1, name: 'one', h: Buffer.from([0, 255]), score: 0.5 });
      expect(await db.prepare('SELECT * FROM t WHERE id = ?').get(1)).toEqual({ id: 1, name: 'one', h: Buffer.from([0, 255]), score: 0.5 });
      expect(Buffer.isBuffer(await db.prepare('SELECT h FROM t').pluck().get())).toBe(true);
      expect(await db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
      expect(await db.prepare('SELECT EXISTS (SELECT 1 FROM t WHERE id = ?) AS e').get(2)).toEqual({ e: 0 });
      expect(await db.prepare('SELECT name FROM t WHERE id = ?').get(99)).toBeUndefined();
      expect((await db.prepare('UPDATE t SET name = ? WHERE id > ?').run('uno', 0)).changes).toBe(1);
    });

    it('rolls a failed transaction back whole, and a failed nested one back to its savepoint', async () => {
      const insert = db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
      await expect(
        db.transaction(async () => {
          await insert.run(10, 'kept only if all commits');
          await insert.run(1, 'duplicate key');
        }),
      ).rejects.toThrow(/UNIQUE|unique/);
      expect(await db.prepare('SELECT COUNT(*) FROM t WHERE id = 10').pluck().get()).toBe(0);
      expect(db.inTransaction).toBe(false);

      await db.transaction(async () => {
        await insert.run(20, 'outer');
        // A function the transaction calls joins it without being handed anything.
        const inner = () =>
          db.transaction(async () => {
            await insert.run(21, 'inner');
            throw new Error('inner fails');
          });
        await expect(inner()).rejects.toThrow('inner fails');
        expect(db.inTransaction).toBe(true);
        await insert.run(22, 'outer again');
      });
      expect(await db.prepare('SELECT id FROM t WHERE id >= 20 ORDER BY id').pluck().all()).toEqual([20, 22]);
    });

    it("keeps an open transaction's writes from every other caller until it commits", async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let inside!: () => void;
      const started = new Promise<void>((r) => (inside = r));
      const tx = db.transaction(async () => {
        await db.prepare('INSERT INTO t (id, name) VALUES (?, ?)').run(30, 'uncommitted');
        inside();
        await held;
      });
      await started;
      // A read from outside: on SQLite it waits for the commit, on PostgreSQL it does not see the row.
      const outside = db.prepare('SELECT name FROM t WHERE id = 30').pluck().get();
      const seenBeforeCommit = await Promise.race([outside, new Promise((r) => setTimeout(() => r('waiting'), 100))]);
      expect(seenBeforeCommit === 'waiting' || seenBeforeCommit === undefined).toBe(true);
      release();
      await tx;
      expect(await db.prepare('SELECT name FROM t WHERE id = 30').pluck().get()).toBe('uncommitted');
      expect(await db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBeGreaterThan(0);
    });

    it('answers a constraint violation as an error, and stays usable', async () => {
      await expect(db.prepare('INSERT INTO t (id, name) VALUES (?, ?)').run(1, 'again')).rejects.toThrow();
      expect(await db.prepare('SELECT name FROM t WHERE id = 1').pluck().get()).toBe('uno');
    });

    it('refuses lockWrites() outside a transaction', async () => {
      await expect(db.lockWrites()).rejects.toThrow(/inside a transaction/);
    });
  });
}

const TABLE_T = 'CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL, h BYTEA, score DOUBLE PRECISION)';
sharedBehaviour('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-db-'));
  const db = await openDatabase(path.join(dir, 'kb.sqlite'));
  await db.exec(TABLE_T.replace('BYTEA', 'BLOB'));
  return db;
});

describe('a PostgreSQL that accepts connections and never answers', () => {
  // What a stalled or overloaded database looks like to a client: the TCP connection opens, the startup
  // message gets no answer. PG_CONNECT_TIMEOUT_MS bounds the wait of every connection the service opens (the
  // migration lock's and the pool's as the server or the pipeline opens the database, the listener's), and
  // the error counts as an outage (503). Each case's own timeout (4 s) is under pg's fixed 5 s of before.
  let silent: net.Server;
  const sockets: net.Socket[] = [];
  let config: ReturnType<typeof loadConfig>;
  beforeAll(async () => {
    silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as net.AddressInfo;
    config = loadConfig({ DATABASE_URL: `postgres://kb@127.0.0.1:${port}/kb`, PG_CONNECT_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });
  const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

  it('opening the database fails after PG_CONNECT_TIMEOUT_MS with an error that says unavailable', async () => {
    const before = sockets.length;
    const err = await failure(openDatabase(config.databaseUrl!, { ...pgOptions(config), log: () => {} }));
    expect(err).toBeInstanceOf(Error);
    expect(databaseUnavailable(err)).toMatch(/no database connection could be had in time/);
    expect(sockets.length).toBeGreaterThan(before);
  }, 4000);

  it("a query of the pool fails so too", async () => {
    const db = new PgDb(config.databaseUrl!, { ...pgOptions(config), log: () => {} });
    try {
      expect(databaseUnavailable(await failure(db.prepare('SELECT 1').get()))).toMatch(/no database connection could be had in time/);
    } finally {
      await db.close().catch(() => {});
    }
  }, 4000);

  it('the listener of another instance\'s writes fails so too', async () => {
    const err = await failure(listen(config.databaseUrl!, 'kb_posts', () => {}, () => {}, pgOptions(config)));
    expect(databaseUnavailable(err)).toMatch(/no database connection could be had in time/);
  }, 4000);

  it('refuses a connect timeout outside 100..600000 ms, and defaults to 5 s', () => {
    expect(loadConfig({}).pgConnectTimeoutMs).toBe(5000);
    expect(() => loadConfig({ PG_CONNECT_TIMEOUT_MS: '50' })).toThrow(/PG_CONNECT_TIMEOUT_MS/);
    expect(() => loadConfig({ PG_CONNECT_TIMEOUT_MS: 'soon' })).toThrow(/PG_CONNECT_TIMEOUT_MS/);
  });
});

describePostgres('PostgreSQL behind the asynchronous interface', () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
  });

  sharedBehaviour('PostgreSQL', async () => {
    const db = await openDatabase(await pg.createDatabase());
    await db.exec(TABLE_T);
    return db;
  });

  it('answers a constraint violation with its SQLSTATE', async () => {
    const db = await openDatabase(await pg.createDatabase());
    try {
      await db.exec(TABLE_T);
      await db.prepare('INSERT INTO t (id, name) VALUES (1, ?)').run('one');
      const err = await db.prepare('INSERT INTO t (id, name) VALUES (1, ?)').run('again').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PgError);
      expect((err as PgError).code).toBe('23505');
    } finally {
      await db.close();
    }
  });

  it('runs write transactions side by side until they take the write lock, then one after the other', async () => {
    const db = await openDatabase(await pg.createDatabase(), { lockTimeoutMs: 10_000 });
    try {
      await db.exec(TABLE_T);
      const order: string[] = [];
      let releaseA!: () => void;
      const aHolds = new Promise<void>((r) => (releaseA = r));
      let aLocked!: () => void;
      const lockedA = new Promise<void>((r) => (aLocked = r));
      const a = db.transaction(async () => {
        await db.prepare('INSERT INTO t (id, name) VALUES (1, ?)').run('a');
        await db.lockWrites();
        aLocked();
        await aHolds;
        order.push('a commits');
      });
      await lockedA;
      // B writes while A holds the lock (no lock at BEGIN), then waits at its own lockWrites.
      const b = db.transaction(async () => {
        await db.prepare('INSERT INTO t (id, name) VALUES (2, ?)').run('b');
        order.push('b wrote');
        await db.lockWrites();
        order.push('b locked');
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(order).toEqual(['b wrote']);
      releaseA();
      await Promise.all([a, b]);
      expect(order).toEqual(['b wrote', 'a commits', 'b locked']);
    } finally {
      await db.close();
    }
  });

  it('gives up waiting for the write lock after the lock timeout, with an error that says unavailable', async () => {
    const url = await pg.createDatabase();
    const db = await openDatabase(url, { lockTimeoutMs: 300 });
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN; SELECT pg_advisory_xact_lock(1801, 1)');
      const err = await db.transaction(() => db.lockWrites()).catch((e: unknown) => e);
      expect((err as PgError).code).toBe('55P03');
      expect(databaseUnavailable(err)).toMatch(/lock timeout/);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
      await db.close();
    }
  });

  it('replaces connections the database dropped; a transaction that loses its connection fails whole', async () => {
    const url = await pg.createDatabase();
    const mine = await openDatabase(url, { applicationName: 'kb-reconnect-test', poolSize: 2, log: () => {} });
    const admin = new Client({ connectionString: pg.url('postgres') });
    await admin.connect();
    const kill = () => admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb-reconnect-test'");
    try {
      await mine.exec('CREATE TABLE r (id BIGINT PRIMARY KEY)');
      await kill();
      await new Promise((r) => setTimeout(r, 200)); // the pool hears of the drop
      await mine.prepare('INSERT INTO r (id) VALUES (?)').run(1);
      expect(await mine.prepare('SELECT id FROM r').pluck().all()).toEqual([1]);

      const tx = mine.transaction(async () => {
        await mine.prepare('INSERT INTO r (id) VALUES (?)').run(2);
        await kill();
        await new Promise((r) => setTimeout(r, 200));
        await mine.prepare('INSERT INTO r (id) VALUES (?)').run(3);
      });
      const err = await tx.catch((e: unknown) => e);
      expect(databaseUnavailable(err), String(err)).not.toBeNull();
      expect(mine.inTransaction).toBe(false);
      expect(await mine.prepare('SELECT id FROM r ORDER BY id').pluck().all()).toEqual([1]);
    } finally {
      await mine.close();
      await admin.end();
    }
  });

  it('applies the migrations once when several processes open a new database at the same moment', async () => {
    const url = await pg.createDatabase();
    const opener = `import { openDatabase } from ${JSON.stringify(new URL('../../../src/lib/data/db/index.ts', import.meta.url).pathname)}; const db = await openDatabase(process.argv[1]); await db.close();`;
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // vitest's loader hooks are not needed by a plain node child
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', opener, url], { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (code) => resolve({ code, err }));
      })),
    );
    for (const r of runs) expect(r, r.err).toMatchObject({ code: 0 });
    const check = await openDatabase(url);
    try {
      const applied = await check.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      expect(applied).toEqual(migrationFiles('postgres').map((m) => m.version));
    } finally {
      await check.close();
    }
  });
});
