// Guessing user codes is limited: unknown codes tried by lookups, approvals and the approval page count
// against the client, and past the limit everything code-related answers 429 with Retry-After. What a
// signed-in person tries themselves counts against them (and the address they try from); anonymous lookups,
// and reads another site may have made a browser send, count against the address, and limit only more of
// those: a page elsewhere cannot spend a person's budget (issue 39, item 5). Starting requests is limited
// per address too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { deviceClient } from './helpers.ts';
import { GUESS_LIMIT, START_LIMIT } from '../../../api/device/index.ts';
import { GuessGuard } from '../../../src/lib/data/device/guess-guard.ts';

/** Distinct well-formed codes no request has. */
const unknownCode = (prefix: string, i: number) => `${prefix}${'BCDFGHJKMNPQRSTVWXZ'[i]}`;

describe('user_code guessing over HTTP', () => {
  let srv: TestServer;
  let dev: ReturnType<typeof deviceClient>;
  beforeAll(async () => {
    srv = await startTestServer();
    dev = deviceClient(srv);
  });
  afterAll(() => srv.stop());

  it('lets known codes through freely, then refuses an address that tried too many unknown ones', async () => {
    const started = await dev.start('post');
    for (let i = 0; i < GUESS_LIMIT.limit + 5; i++) expect((await dev.lookup(started.user_code)).status).toBe(200);

    const half = Math.floor(GUESS_LIMIT.limit / 2);
    for (let i = 0; i < half; i++) expect((await dev.lookup(unknownCode('BBBB-BBB', i))).status).toBe(404);
    for (let i = half; i < GUESS_LIMIT.limit; i++) expect((await srv.get(`/device?user_code=${unknownCode('CCCC-CCC', i)}`)).status).toBe(404);

    const blocked = await dev.lookup('DDDD-DDDD');
    expect(blocked.status).toBe(429);
    const wait = Number(blocked.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(GUESS_LIMIT.windowMs / 1000);
    // Now even the right code is refused to anonymous callers from this address, by the API and by the
    // page, which offers to sign in and look it up as oneself.
    expect((await dev.lookup(started.user_code)).status).toBe(429);
    const page = await srv.get(`/device?user_code=${started.user_code}`);
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBeTruthy();
    const html = await page.text();
    expect(html).toMatch(/Too many/);
    expect(html).toContain(`/api/auth/idp/login?next=${encodeURIComponent(`/device?user_code=${started.user_code}`).replace(/&/g, '&amp;')}`);
    expect(html).not.toContain('ci-box');
  });

  it('counts what a signed-in person tries against them and their address, and refuses them past the limit', async () => {
    // A server of its own: this test spends the address's budget for signed-in callers.
    const own = await startTestServer();
    try {
      const ownDev = deviceClient(own);
      const started = await ownDev.start('post');
      const guesser = await sessionFor(own, 'guesser@example.org');
      const half = Math.floor(GUESS_LIMIT.limit / 2);
      for (let i = 0; i < half; i++) expect((await ownDev.lookup(unknownCode('BBBB-BBB', i), guesser.headers)).status).toBe(404);
      for (let i = half; i < GUESS_LIMIT.limit; i++) expect((await ownDev.decide(unknownCode('CCCC-CCC', i), 'approve', guesser.headers)).status).toBe(404);

      const blocked = await ownDev.lookup(started.user_code, guesser.headers);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await ownDev.decide(started.user_code, 'approve', guesser.headers)).status).toBe(429);
      const page = await own.get(`/device?user_code=${started.user_code}`, { headers: { Cookie: guesser.cookie } });
      expect(page.status).toBe(429);
      expect(await page.text()).toMatch(/Too many/);
      // Another account from the same address gets no fresh budget…
      expect((await ownDev.lookup(started.user_code, (await sessionFor(own, 'accomplice@example.org')).headers)).status).toBe(429);
      // …and anonymous lookups, a budget of their own, are not refused for it.
      expect((await ownDev.lookup(started.user_code)).status).toBe(200);
    } finally {
      await own.stop();
    }
  });

  it('limits how many requests one address starts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < START_LIMIT.limit + 1; i++) statuses.push((await dev.send('/api/oauth/device?client_name=x')).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(START_LIMIT.limit);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('a page on another site cannot lock a person out of approving (issue 39, item 5)', () => {
  let srv: TestServer;
  let dev: ReturnType<typeof deviceClient>;
  beforeAll(async () => {
    srv = await startTestServer();
    dev = deviceClient(srv);
  });
  afterAll(() => srv.stop());

  // What <img src="…/device?user_code=…"> on a page elsewhere makes the person's browser send: no cookie
  // (the session is SameSite=Lax), marked as another site's.
  const image = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' };

  it('after ten cookie-less GETs of /device with unknown codes, the signed-in person still sees the request and approves it', async () => {
    const started = await dev.start('post', { client_name: 'agent-login.sh', client_host: 'eva-laptop' });
    for (let i = 0; i < GUESS_LIMIT.limit; i++) await srv.get(`/device?user_code=${unknownCode('BBBB-BBB', i)}`, { headers: image });
    // Those GETs did count: anonymous lookups from this address are refused now.
    expect((await dev.lookup(started.user_code)).status).toBe(429);

    // The person opens the device's link (from the terminal: Sec-Fetch-Site none), signed in.
    const eva = await sessionFor(srv, 'eva@example.org');
    const page = await srv.get(`/device?user_code=${started.user_code}`, { headers: { Cookie: eva.cookie, 'Sec-Fetch-Site': 'none' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('eva-laptop');
    expect(html).toMatch(/<button type="submit" name="action" value="approve">Approve<\/button>/);
    expect((await dev.lookup(started.user_code, eva.headers)).status).toBe(200);
    const approved = await dev.decide(started.user_code, 'approve', eva.headers);
    expect(approved.status).toBe(200);
    expect((await approved.json()).status).toBe('approved');
    const token = await dev.poll('post', started.device_code);
    expect(token.status).toBe(200);
    expect((await token.json()).user_email).toBe('eva@example.org');
  });

  it('navigations another site makes with the session count as that site\'s; a link from elsewhere then takes one click more', async () => {
    const started = await dev.start('post', { client_name: 'agent-login.sh', client_host: 'ivo-desktop' });
    const ivo = await sessionFor(srv, 'ivo@example.org');
    // A script elsewhere navigating a window it opened: a top-level GET, so the Lax session goes along.
    const navigation = { Cookie: ivo.cookie, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' };
    // Unknown (404) until this address is over its limit for such reads, then the page below (200).
    for (let i = 0; i < GUESS_LIMIT.limit; i++) expect([404, 200]).toContain((await srv.get(`/device?user_code=${unknownCode('CCCC-CCC', i)}`, { headers: navigation })).status);

    // Ivo follows the device's link from a chat on another site: over this address's limit for such
    // reads, the code is not looked up (nothing is said about it); one button goes on from this site.
    const arrived = await srv.get(`/device?user_code=${started.user_code}`, { headers: navigation });
    expect(arrived.status).toBe(200);
    const interstitial = await arrived.text();
    expect(interstitial).not.toContain('ivo-desktop');
    expect(interstitial).not.toMatch(/value="approve"/);
    expect(interstitial).toMatch(/<form method="get" action="\/device">\n<input type="hidden" name="user_code" value="([^"]+)">/);
    expect(/name="user_code" value="([^"]+)"/.exec(interstitial)![1]).toBe(started.user_code);

    // The button's GET comes from this site: Ivo's own budget, untouched by the other site.
    const sameOrigin = { Cookie: ivo.cookie, 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' };
    const page = await srv.get(`/device?user_code=${encodeURIComponent(started.user_code)}`, { headers: sameOrigin });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('ivo-desktop');
    expect(html).toMatch(/value="approve"/);
    const done = await srv.get('/device', {
      method: 'POST',
      headers: { ...sameOrigin, Origin: srv.url, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user_code: started.user_code, action: 'approve' }).toString(),
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toMatch(/You approved/);
    expect((await dev.poll('post', started.device_code)).status).toBe(200);
  });
});

describe('GuessGuard', () => {
  it('is a sliding window: old failures leave it one by one', async () => {
    let t = 0;
    const guard = new GuessGuard({ limit: 3, windowMs: 10_000, now: () => t });
    await guard.fail('a');
    t = 4000;
    await guard.fail('a');
    await guard.fail('a');
    expect(await guard.retryAfter('a')).toBe(6); // the first failure leaves at t = 10 s
    expect(await guard.retryAfter('b')).toBe(0);
    expect(await guard.wait(['b', 'a'])).toBe(6);
    t = 10_001;
    expect(await guard.retryAfter('a')).toBe(0);
    await guard.fail('a');
    expect(await guard.retryAfter('a')).toBe(4); // now the failures at 4 s decide
  });
});
