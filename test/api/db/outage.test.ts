// A PostgreSQL outage is an outage of the database, not of the service: while the database is stopped,
// requests that need it answer 503 with Retry-After (never a 500), static files and the health route are
// served, the audit checkpoint timer keeps failing quietly instead of ending the process (before, its
// uncaught error ended every instance on the database at once), and writing resumes by itself once the
// database is back, every acknowledged write stored.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { fixtureContent } from '../../helpers/content.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { describePostgres, startPostgres, type PgCluster } from '../../helpers/postgres.ts';
import { captureConsoleErrors } from '../../helpers/console-log.ts';

describePostgres('a PostgreSQL outage', () => {
  const video = loadSnapshot(fixtureContent()).videos[0].video_id;
  let cluster: PgCluster;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession;
  let log: ReturnType<typeof captureConsoleErrors>;

  beforeAll(async () => {
    log = captureConsoleErrors();
    cluster = await startPostgres();
    // The checkpoint timer asks the database every second (and a checkpoint is due after a second).
    srv = await startTestServer({ env: { DATABASE_URL: await cluster.createDatabase(), AUDIT_CHECKPOINT_INTERVAL_SECONDS: '1', WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'outage-ana@example.org', 'Ana');
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
    await cluster?.stop();
    log?.restore();
  });

  const comment = (body: string) => send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: video, body } });
  const count = async () => Number(((await srv.db.prepare('SELECT COUNT(*) AS n FROM comments').get()) as { n: number }).n);

  it('answers 503 with Retry-After while the database is down, serves what needs no database, and recovers by itself', async () => {
    expect((await comment('before the outage')).status).toBe(201);
    await cluster.pause();

    const failures: Response[] = [];
    for (let i = 0; i < 5; i++) failures.push(await comment(`during the outage ${i}`));
    failures.push(await send(`/api/comments?entity_type=video&entity_id=${video}`));
    for (const res of failures) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      const body = await res.json();
      expect(body.detail).toMatch(/database is unavailable/);
      expect(body.hint).toMatch(/Retry after 2 s/);
    }
    // The OAuth token endpoint answers in RFC 6749's form.
    const token = await srv.get('/api/oauth/v2/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=r&client_id=c' });
    expect(token.status).toBe(503);
    expect(await token.json()).toMatchObject({ error: 'temporarily_unavailable' });
    // What needs no database is served throughout.
    expect((await srv.get('/')).status).toBe(200);
    expect((await srv.get('/api/health')).status).toBe(200);
    expect((await srv.get('/api/latest')).status).toBe(200);

    // The checkpoint timer ticks against the stopped database (an uncaught error there ends this process,
    // and vitest fails the file); the outage is logged, not every request of it.
    await new Promise((r) => setTimeout(r, 2500));
    expect(log.lines.filter((l) => l.includes('unhandled error on database')).length).toBeLessThanOrEqual(2);
    expect(log.lines.filter((l) => /unhandled error on (POST|GET) /.test(l))).toEqual([]);

    await cluster.resume();
    const back = Date.now();
    let status = 0;
    while (Date.now() - back < 5000 && status !== 201) {
      status = (await comment('after the outage')).status;
      if (status !== 201) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(201);
    // The acknowledged writes (one before, one after) are stored, with their audit events, and a
    // checkpoint is made again.
    expect(await count()).toBe(2);
    expect(await srv.audit.checkpointNow()).not.toBeUndefined();
    const events = (await (await srv.get('/api/audit?kind=comment.create&limit=10')).json()).items;
    expect(events).toHaveLength(2);
  }, 60_000);
});
