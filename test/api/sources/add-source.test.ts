// POST /api/sources: adding pages and texts, duplicates by canonical URL, and the SSRF guard: loopback,
// private, link-local and other internal addresses refused directly or through a redirect, only http(s),
// size and time limits. "The internet" is a server on 127.0.0.2, the only allow-listed address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { startInternalServer, startPageServer, type PageServer } from './page-server.ts';
import { failAuditEvents } from '../../helpers/db-faults.ts';

let srv: TestServer;
let send: Send;
let web: PageServer;
let internal: PageServer;
let ana: TestSession;

beforeAll(async () => {
  web = await startPageServer();
  internal = await startInternalServer();
  srv = await startTestServer({
    env: { SOURCES_ALLOW_PRIVATE_CIDRS: '127.0.0.2/32', SOURCE_FETCH_TIMEOUT_MS: '1500', SOURCE_MAX_BYTES: '65536', WRITE_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
});
afterAll(async () => {
  await srv.stop();
  await web.close();
  await internal.close();
});

const add = (body: unknown, as: TestSession | null = ana) => send('/api/sources', { method: 'POST', ...(as ? { as } : {}), json: body });
const sourceRows = async () => (await srv.db.prepare('SELECT COUNT(*) FROM sources').pluck().get()) as number;

describe('adding a web page', () => {
  it('fetches the page, keeps title and readable text, and lists it as a web_page source', async () => {
    const res = await add({ url: `${web.origin}/article` });
    expect(res.status, await res.clone().text()).toBe(200);
    const s = await res.json();
    expect(s).toMatchObject({ type: 'web_page', title: 'Agents in claims handling', url: `${web.origin}/article`, canonical_url: `${web.origin}/article`, origin: 'fetched' });
    expect(s.id).toMatch(/^src_/);
    expect(s.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const text = (await srv.db.prepare('SELECT text FROM sources WHERE id = ?').pluck().get(s.id)) as string;
    expect(text).toContain('Cycle time fell from nine days to four');
    expect(text).toContain('\n\n'); // paragraphs stay paragraphs
    expect(text).not.toMatch(/SCRIPT-SHOULD-NOT-APPEAR|NAV-SHOULD-NOT-APPEAR|color: red/);
    const list = await (await send('/api/sources?type=web_page')).json();
    expect(list.items[0]).toMatchObject({ type: 'web_page', id: s.id, title: s.title, url: s.url });
    const events = await (await send(`/api/audit?kind=source.add&subject_id=${s.id}`)).json();
    expect(events.items[0].data).toMatchObject({ type: 'web_page', canonical_url: `${web.origin}/article` });
  });

  it('refuses duplicates by canonical URL with 409, before or after fetching', async () => {
    const before = await sourceRows();
    const hitsBefore = web.hits.length;
    // Same page with a fragment, tracking parameters and a trailing slash: refused without a fetch.
    const same = await add({ url: `${web.origin}/article/?utm_source=newsletter#top` });
    expect(same.status).toBe(409);
    expect((await same.json()).detail).toMatch(/already added/);
    expect(web.hits.length).toBe(hitsBefore);
    // Another address whose rel=canonical names the same page: refused after reading it.
    expect((await add({ url: `${web.origin}/article-copy` })).status).toBe(409);
    expect(await sourceRows()).toBe(before);
    // A rel=canonical on another site is ignored: the page's own address is its key.
    const offsite = await (await add({ url: `${web.origin}/offsite-canonical` })).json();
    expect(offsite.canonical_url).toBe(`${web.origin}/offsite-canonical`);
  });

  it('follows up to 5 redirects, checking each hop, and refuses a sixth', async () => {
    const ok = await add({ url: `${web.origin}/chain/4` });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await ok.json()).url).toBe(`${web.origin}/no-canonical?via=chain`);
    const tooMany = await add({ url: `${web.origin}/chain/5` });
    expect(tooMany.status).toBe(502);
    expect((await tooMany.json()).detail).toMatch(/redirects/);
  });

  it('accepts plain text, decodes the declared charset, and lets the caller name the page', async () => {
    const plain = await (await add({ url: `${web.origin}/plain` })).json();
    expect(plain.title).toBe('Plain notes on agent evaluation');
    const latin = await (await add({ url: `${web.origin}/latin1`, title: 'My café page' })).json();
    expect(latin.title).toBe('My café page');
    expect(await srv.db.prepare('SELECT text FROM sources WHERE id = ?').pluck().get(latin.id)).toContain('café crème');
  });

  it('adds pasted text, and the same text twice is a 409', async () => {
    const body = { title: 'Notes from the claims workshop', text: 'Adjusters want the agent to explain its reasoning.\n\nThey also want an undo button.' };
    const res = await add(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ type: 'web_page', url: null, canonical_url: null, origin: 'pasted_text', title: body.title });
    expect((await add(body)).status).toBe(409);
  });
});

describe('the SSRF guard', () => {
  const kb = () => new URL(srv.url).port;

  it('refuses loopback in every spelling (400) and never connects', async () => {
    const before = await sourceRows();
    for (const url of [
      `http://127.0.0.1:${kb()}/api/health`,
      `${internal.origin}/`,
      `http://localhost:${internal.port}/`,
      `http://[::1]:${internal.port}/`,
      `http://127.1:${internal.port}/`,
      `http://2130706433:${internal.port}/`,
      `http://0x7f000001:${internal.port}/`,
      `http://[::ffff:127.0.0.1]:${internal.port}/`,
      `http://0.0.0.0:${internal.port}/`,
      `https://localhost:${internal.port}/`,
    ]) {
      const res = await add({ url });
      expect(res.status, url).toBe(400);
      expect((await res.json()).detail, url).toMatch(/not a public address/);
    }
    expect(internal.hits).toEqual([]);
    expect(await sourceRows()).toBe(before);
  });

  it('refuses private, link-local, CGNAT, unique-local, multicast and reserved ranges', async () => {
    for (const [url, range] of [
      ['http://10.0.0.1/', 'private'],
      ['http://10.255.1.2:8080/admin', 'private'],
      ['http://172.16.5.4/', 'private'],
      ['http://192.168.1.1/', 'private'],
      ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
      ['http://100.64.0.1/', 'carrierGradeNat'],
      ['http://[fd00::1]/', 'uniqueLocal'],
      ['http://[fe80::1]/', 'linkLocal'],
      ['http://224.0.0.1/', 'multicast'],
      ['http://192.0.2.10/', 'reserved'],
      ['http://[::ffff:10.0.0.1]/', 'private'],
    ]) {
      const res = await add({ url });
      expect(res.status, url).toBe(400);
      expect((await res.json()).detail, url).toContain(`(${range})`);
    }
  });

  it('refuses a redirect from an allowed site into loopback or a private range', async () => {
    for (const target of [`${internal.origin}/secret`, `http://localhost:${internal.port}/secret`, `http://[::1]:${internal.port}/`, 'http://10.0.0.7/', 'http://169.254.169.254/latest/meta-data/']) {
      const res = await add({ url: `${web.origin}/redirect?to=${encodeURIComponent(target)}` });
      expect(res.status, target).toBe(400);
      expect((await res.json()).detail, target).toMatch(/not a public address/);
    }
    // Two hops: allowed → allowed → loopback.
    const inner = `${web.origin}/redirect?to=${encodeURIComponent(`${internal.origin}/deep`)}`;
    expect((await add({ url: `${web.origin}/redirect?to=${encodeURIComponent(inner)}` })).status).toBe(400);
    expect(internal.hits).toEqual([]);
  });

  it('fetches only http and https, and no credentials in URLs', async () => {
    for (const url of ['ftp://example.org/file', 'file:///etc/passwd', 'gopher://example.org/', 'javascript:alert(1)', 'data:text/html,hi', 'not a url']) {
      const res = await add({ url });
      expect(res.status, url).toBe(422);
      expect((await res.json()).detail[0].loc, url).toEqual(['body', 'url']);
    }
    const redirect = await add({ url: `${web.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}` });
    expect(redirect.status).toBe(400);
    expect((await redirect.json()).detail).toMatch(/file:/);
    expect((await add({ url: `http://user:pw@127.0.0.2:${web.port}/article` })).status).toBe(400);
  });

  it('stops at the size limit, with or without Content-Length', async () => {
    for (const p of ['/big', '/big-chunked']) {
      const res = await add({ url: `${web.origin}${p}` });
      expect(res.status, p).toBe(502);
      expect((await res.json()).detail).toMatch(/larger than 65536 bytes/);
    }
  });

  it('stops at the time limit: a page that never answers or trickles is a 504', async () => {
    for (const p of ['/hang', '/slow-body']) {
      const started = Date.now();
      const res = await add({ url: `${web.origin}${p}` });
      expect(res.status, p).toBe(504);
      expect(Date.now() - started).toBeLessThan(4000);
    }
  });

  it('takes only HTML and plain text with readable content, from pages that answer 2xx', async () => {
    expect((await add({ url: `${web.origin}/json` })).status).toBe(502);
    expect((await add({ url: `${web.origin}/missing` })).status).toBe(502);
    expect((await add({ url: `${web.origin}/empty` })).status).toBe(502);
  });
});

describe('permissions and validation', () => {
  it('needs a signed-in caller', async () => {
    expect((await add({ url: `${web.origin}/no-canonical` }, null)).status).toBe(401);
    expect((await add({ title: 't', text: 'x' }, null)).status).toBe(401);
  });

  it('validates the body (422) with FastAPI-shaped details', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.title'],
      [{ title: 'only a title' }, 'body.text'],
      [{ text: 'only text' }, 'body.title'],
      [{ url: `${web.origin}/article`, text: 'both' }, 'body.text'],
      [{ url: `https://example.org/${'a'.repeat(2048)}` }, 'body.url'],
      [{ title: 'x'.repeat(301), text: 'x' }, 'body.title'],
      [{ title: 't', text: 'x'.repeat(100_001) }, 'body.text'],
      [{ title: 't', text: '   ' }, 'body.text'],
      [{ url: 42 }, 'body.url'],
      [{ url: `${web.origin}/article`, tags: ['x'] }, 'body.tags'],
    ];
    for (const [body, loc] of cases) {
      const res = await add(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect((await res.json()).detail.map((d: { loc: string[] }) => d.loc.join('.')), JSON.stringify(body).slice(0, 80)).toContain(loc);
    }
  });
});

describe('no half-done writes', () => {
  it('adds nothing when the audit event cannot be written', async () => {
    const before = await sourceRows();
    const restoreSource = await failAuditEvents(srv.db, 'source.add');
    try {
      expect((await add({ title: 'Never stored', text: 'This text must not be stored.' })).status).toBe(500);
      expect((await add({ url: `${web.origin}/no-canonical?x=audit` })).status).toBe(500);
      expect(await sourceRows()).toBe(before);
    } finally {
      await restoreSource();
    }
    expect((await add({ title: 'Now stored', text: 'This text must not be stored.' })).status).toBe(200);
  });
});
