// The PostgreSQL side of the data-access layer (api/db/postgres.ts): the same synchronous interface as
// better-sqlite3, so the stores run unchanged. What the stores rely on: placeholders, plucked values,
// numbers and Buffers as SQLite returns them, transactions that roll back whole (savepoints when nested),
// errors with their SQLSTATE, and migrations that run once when several openers race.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPostgres } from '../../../api/db/translate.ts';
import { migrationFiles, openDatabase, type Db } from '../../../api/db/index.ts';
import { PgError } from '../../../api/db/postgres.ts';
import { describePostgres, postgresBinDir, startPostgres, type PgCluster } from '../../helpers/postgres.ts';

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

  it('leaves a worker thread that imports it (as a pipeline job does) its own messages', async () => {
    const dbModule = new URL('../../../api/db/index.ts', import.meta.url).href;
    const code = `import { parentPort } from 'node:worker_threads'; await import(${JSON.stringify(dbModule)}); parentPort.on('message', (m) => parentPort.postMessage('got ' + m));`;
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: { job: 'x' } });
    const errors: string[] = [];
    w.on('error', (e) => errors.push(e.message));
    try {
      const answer = await new Promise<string>((resolve) => {
        w.once('online', () => setTimeout(() => w.postMessage('ping'), 200));
        w.once('message', resolve);
      });
      expect(answer).toBe('got ping');
      await new Promise((r) => setTimeout(r, 300));
      expect(errors).toEqual([]);
    } finally {
      await w.terminate();
    }
  });

  it('has a PostgreSQL migration for every SQLite one, number for number', () => {
    const names = (d: 'sqlite' | 'postgres') => migrationFiles(d).map((m) => m.file);
    expect(names('postgres')).toEqual(names('sqlite'));
  });
});

describePostgres('PostgreSQL behind the synchronous interface', () => {
  let pg: PgCluster;
  let db: Db;
  beforeAll(async () => {
    pg = await startPostgres();
    db = openDatabase(await pg.createDatabase());
    db.exec('CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL, h BYTEA, score DOUBLE PRECISION)');
  });
  afterAll(async () => {
    db?.close();
    await pg?.stop();
  });

  it('gives rows as SQLite does: numbers, Buffers, 1/0 for booleans, plucked values', () => {
    db.prepare('INSERT INTO t (id, name, h, score) VALUES (@id, @name, @h, @score)').run({ id: 1, name: 'one', h: Buffer.from([0, 255]), score: 0.5 });
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(1)).toEqual({ id: 1, name: 'one', h: Buffer.from([0, 255]), score: 0.5 });
    expect(Buffer.isBuffer((db.prepare('SELECT h FROM t').pluck().get() as Buffer))).toBe(true);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
    expect(db.prepare('SELECT EXISTS (SELECT 1 FROM t WHERE id = ?) AS e').get(2)).toEqual({ e: 0 });
    expect(db.prepare('SELECT name FROM t WHERE id = ?').get(99)).toBeUndefined();
    expect(db.prepare('UPDATE t SET name = ? WHERE id > ?').run('uno', 0).changes).toBe(1);
  });

  it('rolls a failed transaction back whole, and a failed nested one back to its savepoint', () => {
    const insert = db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
    expect(() =>
      db.transaction(() => {
        insert.run(10, 'kept only if all commits');
        insert.run(1, 'duplicate key');
      }).immediate(),
    ).toThrow(PgError);
    expect(db.prepare('SELECT COUNT(*) FROM t WHERE id = 10').pluck().get()).toBe(0);
    expect(db.inTransaction).toBe(false);

    db.transaction(() => {
      insert.run(20, 'outer');
      expect(() => db.transaction(() => {
        insert.run(21, 'inner');
        throw new Error('inner fails');
      })()).toThrow('inner fails');
      insert.run(22, 'outer again');
    }).immediate();
    expect(db.prepare('SELECT id FROM t WHERE id >= 20 ORDER BY id').pluck().all()).toEqual([20, 22]);
  });

  it('answers a constraint violation with its SQLSTATE, and the connection stays usable', () => {
    try {
      db.prepare('INSERT INTO t (id, name) VALUES (?, ?)').run(1, 'again');
      expect.unreachable();
    } catch (err) {
      expect((err as PgError).code).toBe('23505');
    }
    expect(db.prepare('SELECT name FROM t WHERE id = 1').pluck().get()).toBe('uno');
  });

  it('refuses a transaction function that returns a promise, and rolls it back', () => {
    expect(() => db.transaction(() => Promise.resolve(1) as unknown as number)()).toThrow(/promise/);
    expect(db.inTransaction).toBe(false);
  });

  it('connects again after the database dropped its connection, but never inside a transaction', async () => {
    const url = await pg.createDatabase();
    const mine = openDatabase(url, { applicationName: 'kb-reconnect-test' });
    const admin = new Client({ connectionString: pg.url('postgres') });
    await admin.connect();
    const kill = async () => {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb-reconnect-test'");
      await new Promise((r) => setTimeout(r, 300)); // the worker hears of the drop
    };
    try {
      mine.exec('CREATE TABLE r (id BIGINT PRIMARY KEY)');
      await kill();
      mine.prepare('INSERT INTO r (id) VALUES (?)').run(1);
      expect(mine.prepare('SELECT id FROM r').pluck().all()).toEqual([1]);

      // Dropped in the middle of a transaction: it fails whole, and the next statement works again.
      const psql = path.join(postgresBinDir()!, 'psql');
      const tx = mine.transaction(() => {
        mine.prepare('INSERT INTO r (id) VALUES (?)').run(2);
        // Nothing asynchronous runs inside a transaction: drop the connection from another process.
        execFileSync(psql, [pg.url('postgres'), '-qAtc', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb-reconnect-test'"]);
        execFileSync('sleep', ['0.3']);
        return mine.prepare('INSERT INTO r (id) VALUES (?)').run(3);
      });
      expect(() => tx.immediate()).toThrow(/connection/);
      expect(mine.inTransaction).toBe(false);
      expect(mine.prepare('SELECT id FROM r ORDER BY id').pluck().all()).toEqual([1]);
    } finally {
      mine.close();
      await admin.end();
    }
  });

  it('applies the migrations once when several processes open a new database at the same moment', async () => {
    const url = await pg.createDatabase();
    const opener = `import { openDatabase } from ${JSON.stringify(new URL('../../../api/db/index.ts', import.meta.url).pathname)}; const db = openDatabase(process.argv[1]); db.close();`;
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
    const check = openDatabase(url);
    try {
      const applied = check.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      expect(applied).toEqual(migrationFiles('postgres').map((m) => m.version));
    } finally {
      check.close();
    }
  });
});
