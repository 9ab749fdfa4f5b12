// POST /api/sources/knowledge: a draft concept written to a temporary copy of content/ (extractively, and
// through an OpenAI-compatible endpoint), loadable by loadSnapshot, proposed as a concept_stub, and
// published when a moderator applies the proposal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { failAuditEvents } from '../../helpers/db-faults.ts';
import { fixtureContent } from '../../helpers/content.ts';

const repoSnap = loadSnapshot(fixtureContent());
const TOPIC = 'claims handling';
const SLUG = 'claims-handling';

function copyContent(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-knowledge-content-'));
  fs.cpSync(fixtureContent(), dir, { recursive: true });
  return dir;
}

describe('extractive drafts (no LLM configured)', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession, mod: TestSession;
  beforeAll(async () => {
    contentDir = copyContent();
    srv = await startTestServer({ contentDir, env: { MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org', 'Ana');
    mod = await sessionFor(srv, 'mod@example.org', 'Mod');
  });
  afterAll(async () => {
    await srv.stop();
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  it('writes a cited draft concept that loads, and files a concept_stub proposal for it', async () => {
    const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: TOPIC } });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect(out).toMatchObject({ slug: SLUG, file: `knowledge/${SLUG}.md`, ai_generated: true, generator: 'extractive', warnings: [] });
    expect(out.draft).toMatchObject({ title: 'Claims handling', draft: true, related: [] });
    expect(out.draft.sources.length).toBeGreaterThan(0);
    expect(out.draft.body).toMatch(/## What the sources say/);
    expect(out.draft.body).toMatch(/\]\(\/(videos|essays|digests)\//); // every quoted sentence cites its source
    expect(out.draft.summary.toLowerCase()).toContain('claim');

    const file = path.join(contentDir, 'knowledge', `${SLUG}.md`);
    expect(fs.readFileSync(file, 'utf8')).toBe(out.draft.markdown);
    expect(fs.readdirSync(path.join(contentDir, 'knowledge')).filter((f) => f.startsWith('.'))).toEqual([]); // no temp files left
    const loaded = loadSnapshot(contentDir).conceptsBySlug.get(SLUG);
    expect(loaded).toMatchObject({ title: 'Claims handling', draft: true });
    expect(loaded!.sources).toEqual(out.draft.sources);
    expect(fs.existsSync(path.join(fixtureContent(), 'knowledge', `${SLUG}.md`))).toBe(false);

    expect(out.proposal).toMatchObject({
      kind: 'concept_stub',
      status: 'pending',
      target: { type: 'knowledge', id: SLUG },
      created_by: ana.userId,
      payload: { slug: SLUG, file: `knowledge/${SLUG}.md`, title: 'Claims handling' },
      evidence: { topic: TOPIC, generator: 'extractive', ai_generated: true },
    });
    expect(out.proposal.confidence).toBeGreaterThan(0.4);
    const pending = await (await send('/api/proposals?kind=concept_stub')).json();
    expect(pending.items.map((p: { proposal_id: string }) => p.proposal_id)).toContain(out.proposal.proposal_id);
    const kinds = (await (await send(`/api/audit?subject_id=${SLUG}`)).json()).items.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['knowledge.draft']);
  });

  it('refuses a second draft on the same topic (409) and a topic nothing mentions (404)', async () => {
    expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'Claims  Handling!' } })).status).toBe(409);
    expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: repoSnap.concepts[0].title } })).status).toBe(409);
    const none = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'zyxwv quantum basketry' } });
    expect(none.status).toBe(404);
    expect(fs.existsSync(path.join(contentDir, 'knowledge', 'zyxwv-quantum-basketry.md'))).toBe(false);
  });

  it('uses pages people added as sources, cited by their address', async () => {
    await srv.db
      .prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run('src_kelp', 'web_page', 'https://example.org/kelp', 'https://example.org/kelp', 'Kelp farming with drones', 'Kelp farming with drones lets small cooperatives survey their lines every morning. Drones spot storm damage to kelp farming lines before divers could.', ana.userId, new Date().toISOString());
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'kelp farming' } })).json();
    expect(out.draft.sources).toEqual([{ type: 'web_page', url: 'https://example.org/kelp', title: 'Kelp farming with drones' }]);
    expect(out.draft.body).toContain('(https://example.org/kelp)');
    expect(loadSnapshot(contentDir).conceptsBySlug.get('kelp-farming')!.draft).toBe(true);
  });

  it('publishes the draft when a moderator accepts and applies the proposal', async () => {
    const stub = (await (await send('/api/proposals?kind=concept_stub')).json()).items.find((p: { target: { id: string } }) => p.target.id === SLUG);
    expect((await send(`/api/proposals/${stub.proposal_id}/decision`, { method: 'POST', as: mod, json: { action: 'accept' } })).status).toBe(200);
    const applied = await (await send(`/api/proposals/${stub.proposal_id}/decision`, { method: 'POST', as: mod, json: { action: 'apply' } })).json();
    expect(applied).toMatchObject({ status: 'applied', applied: { content_changed: true, files: [`knowledge/${SLUG}.md`] } });
    expect(loadSnapshot(contentDir).conceptsBySlug.get(SLUG)!.draft).toBe(false);
  });

  it('leaves no draft file behind when the proposal cannot be written', async () => {
    const restoreDraft = await failAuditEvents(srv.db, 'proposal.create');
    try {
      expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'coding agents' } })).status).toBe(500);
    } finally {
      await restoreDraft();
    }
    expect(fs.existsSync(path.join(contentDir, 'knowledge', 'coding-agents.md'))).toBe(false);
    expect(await srv.db.prepare("SELECT COUNT(*) FROM proposals WHERE target_id = 'coding-agents'").pluck().get()).toBe(0);
    expect((await send('/api/audit?kind=knowledge.draft&subject_id=coding-agents')).ok).toBe(true);
    expect((await (await send('/api/audit?kind=knowledge.draft&subject_id=coding-agents')).json()).items).toEqual([]);
  });

  it('needs a signed-in caller and a usable topic (422)', async () => {
    expect((await send('/api/sources/knowledge', { method: 'POST', json: { topic: TOPIC } })).status).toBe(401);
    for (const body of [{}, { topic: '' }, { topic: 'a' }, { topic: 'x'.repeat(201) }, { topic: '!!! ???' }, { topic: 42 }, { topic: TOPIC, extra: true }]) {
      const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect((await res.json()).detail[0].loc[0]).toBe('body');
    }
  });
});

describe('drafts by an OpenAI-compatible LLM', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession, mod: TestSession;
  let llm: http.Server;
  const requests: { auth?: string; body: { model: string; messages: { role: string; content: string }[] } }[] = [];
  let failNext = false;

  beforeAll(async () => {
    const video = repoSnap.videos[0];
    // A stand-in for the external LLM service: it answers the chat-completions protocol.
    llm = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        requests.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
        if (req.url !== '/v1/chat/completions' || failNext) {
          failNext = false;
          res.writeHead(500, { 'Content-Type': 'application/json' });
          return res.end('{"error":"overloaded"}');
        }
        const content = JSON.stringify({
          summary: 'Claims handling is the work of assessing and settling insurance claims, now often drafted by agents.',
          // The script and the javascript: link stand for a model that was talked into writing markup.
          body: `## Overview\n\nAgents draft the first assessment ([case](/videos/${video.video_id})); see also [a page that does not exist](/videos/doesnotexist1).\n\n<script>alert("draft")</script>\n\n[Open the form](javascript:alert(1))`,
        });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `Here you go:\n${content}` } }] }));
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', () => r()));
    contentDir = copyContent();
    srv = await startTestServer({
      contentDir,
      env: { LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}`, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test', WRITE_RATE_LIMIT_PER_MINUTE: '1000', MODERATOR_EMAILS: 'mod@example.org' },
    });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org', 'Ana');
    mod = await sessionFor(srv, 'mod@example.org', 'Mod');
  });
  afterAll(async () => {
    await srv.stop();
    await new Promise<void>((r) => llm.close(() => r()));
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  it('writes the model’s text, drops links to pages that do not exist, and still lists the sources', async () => {
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: TOPIC } })).json();
    expect(out).toMatchObject({ generator: 'llm:test-model', ai_generated: true, warnings: [] });
    expect(out.draft.summary).toMatch(/^Claims handling is the work/);
    expect(out.draft.body).toContain('## Overview');
    expect(out.draft.body).toContain('see also a page that does not exist');
    expect(out.draft.body).toMatch(/## Sources\n\n- \[/);
    expect(requests[0].auth).toBe('Bearer sk-test');
    expect(requests[0].body.model).toBe('test-model');
    expect(requests[0].body.messages[1].content).toContain('Topic: claims handling');
    expect(loadSnapshot(contentDir).conceptsBySlug.get(SLUG)).toMatchObject({ draft: true });
  });

  it('shows moderators the draft’s body on the moderation page, rendered and sanitised', async () => {
    const page = await srv.get('/moderation', { headers: mod.headers });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('New concept: Claims handling');
    // The draft's own ## heading, demoted under the proposal's <h3>, and its prose.
    expect(html).toMatch(/<h4>Overview<\/h4>\s*<p>Agents draft the first assessment/);
    expect(html).not.toMatch(/<script>alert/);
    expect(html).not.toMatch(/href="javascript:/i);
  });

  it('falls back to an extractive draft, with a warning, when the model fails', async () => {
    failNext = true;
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'accounts payable' } })).json();
    expect(out.generator).toBe('extractive');
    expect(out.warnings[0]).toMatch(/HTTP 500/);
    expect(loadSnapshot(contentDir).conceptsBySlug.get('accounts-payable')).toMatchObject({ draft: true });
  });
});

describe('drafts after review', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession, bor: TestSession, cid: TestSession, mod: TestSession;
  beforeAll(async () => {
    contentDir = copyContent();
    srv = await startTestServer({ contentDir, env: { MODERATOR_EMAILS: 'mod@example.org', AUTO_REJECT_FLAG_THRESHOLD: '2', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org', 'Ana');
    bor = await sessionFor(srv, 'bor@example.org', 'Bor');
    cid = await sessionFor(srv, 'cid@example.org', 'Cid');
    mod = await sessionFor(srv, 'mod@example.org', 'Mod');
  });
  afterAll(async () => {
    await srv.stop();
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  /** A page someone added, mentioning its topic in two sentences the extractive drafter can quote. */
  const addSource = (id: string, title: string) =>
    srv.db
      .prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, 'web_page', `https://example.org/${id}`, `https://example.org/${id}`, title, `${title} is what small teams now plan every week with shared sensors. Crews compare notes on ${title.toLowerCase()} before each season starts.`, ana.userId, new Date().toISOString());
  const draft = async (topic: string) => {
    const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic } });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { slug: string; proposal: { proposal_id: string }; draft: { markdown: string } };
  };
  const decide = (id: string, body: unknown) => send(`/api/proposals/${id}/decision`, { method: 'POST', as: mod, json: body });
  const fileOf = (slug: string) => path.join(contentDir, 'knowledge', `${slug}.md`);

  it('removes the draft when a moderator rejects its proposal, so the topic can be drafted again', async () => {
    await addSource('src_tide', 'Tidal turbine maintenance');
    const first = await draft('tidal turbine maintenance');
    expect(fs.existsSync(fileOf(first.slug))).toBe(true);
    const rejected = await decide(first.proposal.proposal_id, { action: 'reject', note: 'Too thin' });
    expect(rejected.status, await rejected.clone().text()).toBe(200);
    expect(fs.existsSync(fileOf(first.slug))).toBe(false);
    expect(fs.readdirSync(path.join(contentDir, 'knowledge')).filter((f) => f.startsWith('.'))).toEqual([]);
    const again = await draft('tidal turbine maintenance');
    expect(again.slug).toBe(first.slug);
    expect(fs.readFileSync(fileOf(first.slug), 'utf8')).toBe(again.draft.markdown);
  });

  it('removes it when community flags reject the proposal, and when the proposal is superseded', async () => {
    await addSource('src_kelp', 'Seaweed drying racks');
    const flagged = await draft('seaweed drying racks');
    for (const who of [bor, cid]) expect((await send(`/api/proposals/${flagged.proposal.proposal_id}/flag`, { method: 'POST', as: who, json: { reason: 'made up' } })).status).toBe(200);
    expect((await (await send(`/api/proposals/${flagged.proposal.proposal_id}`)).json()).status).toBe('rejected');
    expect(fs.existsSync(fileOf(flagged.slug))).toBe(false);

    await addSource('src_oyster', 'Oyster reef restoration');
    const old = await draft('oyster reef restoration');
    await addSource('src_mussel', 'Mussel line monitoring');
    const other = await draft('mussel line monitoring');
    const sup = await decide(old.proposal.proposal_id, { action: 'supersede', superseded_by: other.proposal.proposal_id });
    expect(sup.status, await sup.clone().text()).toBe(200);
    expect(fs.existsSync(fileOf(old.slug))).toBe(false);
    expect(fs.existsSync(fileOf(other.slug))).toBe(true);
  });

  it('leaves a file alone that is no longer a draft', async () => {
    await addSource('src_bees', 'Urban beekeeping cooperatives');
    const d = await draft('urban beekeeping cooperatives');
    const published = d.draft.markdown.replace(/^draft: true$/m, 'draft: false');
    fs.writeFileSync(fileOf(d.slug), published);
    expect((await decide(d.proposal.proposal_id, { action: 'reject' })).status).toBe(200);
    expect(fs.readFileSync(fileOf(d.slug), 'utf8')).toBe(published);
  });

  it('applies exactly the draft that was proposed: 409 when the file changed since', async () => {
    await addSource('src_glacier', 'Glacier monitoring drones');
    const d = await draft('glacier monitoring drones');
    const id = d.proposal.proposal_id;
    const payload = (await (await send(`/api/proposals/${id}`)).json()).payload;
    expect(payload.file_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(payload.body).toMatch(/## What the sources say/);
    const page = await (await srv.get('/moderation', { headers: mod.headers })).text();
    expect(page).toContain('<h4>What the sources say</h4>');
    expect((await decide(id, { action: 'accept' })).status).toBe(200);

    const tampered = `${d.draft.markdown.trimEnd()}\n\nUnreviewed text added after the proposal was filed.\n`;
    fs.writeFileSync(fileOf(d.slug), tampered);
    const refused = await decide(id, { action: 'apply' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toMatch(/changed since/);
    expect(fs.readFileSync(fileOf(d.slug), 'utf8')).toBe(tampered);
    expect((await (await send(`/api/proposals/${id}`)).json()).status).toBe('accepted');

    fs.writeFileSync(fileOf(d.slug), d.draft.markdown);
    const applied = await decide(id, { action: 'apply' });
    expect(applied.status, await applied.clone().text()).toBe(200);
    expect(fs.readFileSync(fileOf(d.slug), 'utf8')).toBe(d.draft.markdown.replace(/^draft: true$/m, 'draft: false'));
  });
});

describe('search cost', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession;
  beforeAll(async () => {
    contentDir = copyContent();
    srv = await startTestServer({ contentDir, env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  });
  afterAll(async () => {
    await srv.stop();
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  /** Bytes this process has read through read(2) and friends, page cache included (Linux). */
  const bytesRead = () => Number(/^rchar:\s*(\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);

  it('reads a bounded number of bytes per draft, whatever the sources table holds', async () => {
    const MiB = 1024 * 1024;
    const filler = 'Ordinary sentences about nothing in particular fill the rest of this long page. '.repeat(Math.ceil((2 * MiB) / 80)).slice(0, 2 * MiB);
    const insert = srv.db.prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    await srv.db.transaction(async () => {
      for (let i = 0; i < 20; i++) {
        // Pages that mention the topic (candidates, each 2 MiB) and pages that do not (never worth reading).
        const url = `https://example.org/crane-${i}`;
        await insert.run(`src_crane${i}`, 'web_page', url, url, `Harbour crane telemetry at port ${i}`, `Harbour crane telemetry warns port ${i} before a crane fails in a storm. ${filler}`, ana.userId, new Date().toISOString());
        const other = `https://example.org/other-${i}`;
        await insert.run(`src_other${i}`, 'web_page', other, other, `Unrelated page ${i}`, filler, ana.userId, new Date().toISOString());
      }
    });
    const before = bytesRead();
    const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'harbour crane telemetry' } });
    const read = bytesRead() - before;
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect(out.draft.sources.length).toBeGreaterThan(0);
    expect(out.draft.sources.every((s: { url?: string }) => /^https:\/\/example\.org\/crane-\d+$/.test(s.url ?? ''))).toBe(true);
    // The table holds 80 MiB of text; a draft reads a bounded slice of it.
    expect(read).toBeLessThan(16 * MiB);
  });
});
