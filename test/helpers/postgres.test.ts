// The PostgreSQL test harness itself: a cluster starts, hands out separate databases, and is gone after stop().
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, startPostgres, type PgCluster } from './postgres.ts';

async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describePostgres('PostgreSQL test harness', () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(() => cluster?.stop());

  it('starts with durability off (what makes it quick) and creates separate, working databases', async () => {
    const a = await cluster.createDatabase();
    const b = await cluster.createDatabase('harness_b');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+$/);
    expect(b).toBe(cluster.url('harness_b'));

    expect(await query(a, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await query(b, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);

    const [nameA] = await query(a, 'SELECT current_database() AS name');
    const [nameB] = await query(b, 'SELECT current_database() AS name');
    expect(nameA.name).not.toBe(nameB.name);
    expect(nameB.name).toBe('harness_b');

    // A table made in one database does not exist in the other; each starts empty.
    await query(a, 'CREATE TABLE only_in_a (x int)');
    const tables = (url: string) => query(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    expect(await tables(a)).toEqual([{ table_name: 'only_in_a' }]);
    expect(await tables(b)).toEqual([]);

    const [enc] = await query(a, 'SHOW server_encoding');
    expect(enc.server_encoding).toBe('UTF8');
    // A test's server is thrown away: no fsync, no waiting for commits, no full pages (about a second to
    // start, and fast writes). How long it takes is the machine's; that it runs so is the harness's.
    const settings = await query(a, "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name");
    expect(settings).toEqual([
      { name: 'fsync', setting: 'off' },
      { name: 'full_page_writes', setting: 'off' },
      { name: 'synchronous_commit', setting: 'off' },
    ]);
  });

  it('stops: the port no longer answers', async () => {
    const port = Number(new URL(cluster.url('postgres')).port);
    expect(await answers(port)).toBe(true);
    await cluster.stop();
    expect(await answers(port)).toBe(false);
    await cluster.stop(); // a second stop (afterAll) is harmless
  });
});
