// Guessing user codes is limited: unknown codes tried by lookups, approvals and the approval page count
// against the client (address, and person when signed in); past the limit everything code-related
// answers 429 with Retry-After. Starting requests is limited per address too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { deviceClient } from './helpers.ts';
import { GUESS_LIMIT, START_LIMIT } from '../../../api/device/index.ts';
import { GuessGuard } from '../../../api/device/guess-guard.ts';

describe('user_code guessing over HTTP', () => {
  let srv: TestServer;
  let dev: ReturnType<typeof deviceClient>;
  beforeAll(async () => {
    srv = await startTestServer();
    dev = deviceClient(srv);
  });
  afterAll(() => srv.stop());

  it('lets known codes through freely, then refuses a client that tried too many unknown ones', async () => {
    const started = await dev.start('post');
    for (let i = 0; i < GUESS_LIMIT.limit + 5; i++) expect((await dev.lookup(started.user_code)).status).toBe(200);

    const person = sessionFor(srv, 'guesser@example.org');
    const half = Math.floor(GUESS_LIMIT.limit / 2);
    for (let i = 0; i < half; i++) expect((await dev.lookup(`BBBB-BBB${'BCDFGHJKMN'[i]}`)).status).toBe(404);
    for (let i = half; i < GUESS_LIMIT.limit; i++) expect((await dev.decide(`CCCC-CCC${'BCDFGHJKMN'[i]}`, 'approve', person.headers)).status).toBe(404);

    const blocked = await dev.lookup('DDDD-DDDD');
    expect(blocked.status).toBe(429);
    const wait = Number(blocked.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(GUESS_LIMIT.windowMs / 1000);
    // Now even the right code is refused from this client, by the API and by the page.
    expect((await dev.lookup(started.user_code)).status).toBe(429);
    expect((await dev.decide(started.user_code, 'approve', person.headers)).status).toBe(429);
    const page = await srv.get(`/device?user_code=${started.user_code}`);
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBeTruthy();
    expect(await page.text()).toMatch(/Too many/);
  });

  it('limits how many requests one address starts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < START_LIMIT.limit + 1; i++) statuses.push((await dev.send('/api/oauth/device?client_name=x')).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(START_LIMIT.limit);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('GuessGuard', () => {
  it('is a sliding window: old failures leave it one by one', () => {
    let t = 0;
    const guard = new GuessGuard({ limit: 3, windowMs: 10_000, now: () => t });
    guard.fail('a');
    t = 4000;
    guard.fail('a');
    guard.fail('a');
    expect(guard.retryAfter('a')).toBe(6); // the first failure leaves at t = 10 s
    expect(guard.retryAfter('b')).toBe(0);
    expect(() => guard.check(['b', 'a'])).toThrow(/Too many/);
    t = 10_001;
    expect(guard.retryAfter('a')).toBe(0);
    guard.fail('a');
    expect(guard.retryAfter('a')).toBe(4); // now the failures at 4 s decide
  });
});
