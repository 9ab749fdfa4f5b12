// Chat with the knowledge base: chat tokens and their bindings, extractive answers on the sample content
// in both languages, and a real OpenAI-compatible server on loopback that replies, streams, hangs, fails
// and cuts its stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { readEvents, startLlmServer, type LlmServer } from './llm-server.ts';
import { fixtureContent } from '../../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const persona = snap.personas[0];
const other = snap.personas[1];
const exists = (s: { type: string; id: string }) =>
  ({ video: snap.videosById, knowledge: snap.conceptsBySlug, essay: snap.essaysBySlug, digest: snap.digestsByDate })[s.type as 'video']?.has(s.id) ?? false;

/** POST /api/chat/auth: the token and when it expires. */
async function chatGrant(send: Send, as: TestSession | undefined, body: Record<string, unknown> = {}): Promise<{ token: string; expires_in: number; expires_at: string }> {
  const res = await send('/api/chat/auth', { method: 'POST', as, json: { persona_id: persona.persona_id, lang: 'en', mode: 'chat', ...body } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
const chatToken = async (send: Send, as: TestSession | undefined, body: Record<string, unknown> = {}) => (await chatGrant(send, as, body)).token;
const ask = (send: Send, token: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  send('/api/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${token}`, ...headers }, json: { messages: [{ role: 'user', content }], ...extra } });

describe('extractive chat (no language model configured)', () => {
  let srv: TestServer;
  let send: Send;
  let ana: TestSession;
  beforeAll(async () => {
    srv = await startTestServer({ env: { CHAT_TOKEN_TTL_SECONDS: '1', CHAT_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org');
  });
  afterAll(() => srv.stop());

  it('answers from the knowledge base, citing sources that exist', async () => {
    const token = await chatToken(send, ana);
    const res = await ask(send, token, 'How should a deployer prepare for the EU AI Act obligations?');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ object: 'chat.completion', mode: 'extractive', persona_id: persona.persona_id, lang: 'en' });
    const answer: string = body.choices[0].message.content;
    expect(answer).toMatch(/^This is an extract of the most relevant passages/);
    const cited = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited.length).toBeGreaterThan(0);
    for (const n of cited) {
      const s = body.sources.find((x: { n: number }) => x.n === n);
      expect(s, `source [${n}]`).toBeDefined();
      expect(s.cited).toBe(true);
      expect(exists(s), `${s.type}/${s.id}`).toBe(true);
    }
    expect(body.sources.some((s: { title: string }) => /AI Act/i.test(s.title))).toBe(true);
  });

  it('answers in Slovenian when the token says so, and streams as server-sent events', async () => {
    const token = await chatToken(send, ana, { lang: 'sl' });
    const res = await ask(send, token, 'Kako javni sektor v Sloveniji uvaja umetno inteligenco?', { stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = await readEvents(res);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toMatch(/^To je izvleček najustreznejših odlomkov iz baze znanja/);
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.sources.filter((s: { cited: boolean }) => s.cited).every(exists)).toBe(true);
  });

  it('binds the token to its persona, language, user and lifetime', async () => {
    const asked = Date.now();
    const { token, expires_in, expires_at } = await chatGrant(send, ana);
    // It lasts at least the lifetime it is given with (1 s here), whenever in a second it was issued.
    expect(expires_in).toBe(1);
    expect(Date.parse(expires_at)).toBeGreaterThanOrEqual(asked + 1000);
    expect((await ask(send, token, 'agents?', { persona_id: other.persona_id })).status).toBe(403);
    expect((await ask(send, token, 'agents?', { lang: 'sl' })).status).toBe(403);
    const bor = await sessionFor(srv, 'bor@example.org');
    const stolen = await ask(send, token, 'agents?', {}, { Cookie: bor.cookie });
    expect(stolen.status).toBe(403);
    expect((await stolen.json()).detail).toMatch(/someone else/);
    expect((await ask(send, token, 'agents?', {}, { Cookie: ana.cookie })).status).toBe(200);
    expect((await ask(send, `${token.slice(0, -3)}abc`, 'agents?')).status).toBe(401);
    await new Promise((r) => setTimeout(r, Date.parse(expires_at) - Date.now() + 100));
    const expired = await ask(send, token, 'agents?');
    expect(expired.status).toBe(401);
    expect((await expired.json()).detail).toMatch(/expired/);
  });

  it('needs a signed-in caller unless anonymous chat is on, and knows its personas', async () => {
    expect((await send('/api/chat/auth', { method: 'POST', json: { persona_id: persona.persona_id } })).status).toBe(401);
    expect((await send('/api/chat/auth', { method: 'POST', as: ana, json: { persona_id: 'nobody' } })).status).toBe(404);
    expect((await send('/api/chat/auth', { method: 'POST', as: ana, json: { persona_id: persona.persona_id, mode: 'sing' } })).status).toBe(404);
    expect((await send('/api/chat/auth', { method: 'POST', as: ana, json: { persona_id: persona.persona_id, lang: 'de' } })).status).toBe(422);
    expect((await send('/api/chat/completions', { method: 'POST', json: { messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(401);
  });

  it('bounds the conversation, the input and the output', async () => {
    const token = await chatToken(send, ana);
    const many = Array.from({ length: 21 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x' }));
    const post = (json: unknown) => send('/api/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, json });
    expect((await post({ messages: many })).status).toBe(422);
    expect((await post({ messages: [{ role: 'user', content: 'x'.repeat(4001) }] })).status).toBe(422);
    expect((await post({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 5000 })).status).toBe(422);
    expect((await post({ messages: [{ role: 'assistant', content: 'hi' }] })).status).toBe(422);
    const long = Array.from({ length: 4 }, (_, i) => ({ role: i % 2 ? 'user' : 'assistant', content: 'y'.repeat(3500) }));
    const big = await post({ messages: long });
    expect(big.status).toBe(413);
  });
});

describe('anonymous chat', () => {
  it('works with CHAT_ALLOW_ANONYMOUS and a tighter limit', async () => {
    const srv = await startTestServer({ env: { CHAT_ALLOW_ANONYMOUS: 'true', CHAT_ANON_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const send = sender(srv);
      const res = await send('/api/chat/auth', { method: 'POST', json: { persona_id: persona.persona_id } });
      const t = await res.json();
      expect(t.anonymous).toBe(true);
      expect((await ask(send, t.token, 'What is pilot purgatory?')).status).toBe(200);
      expect((await ask(send, t.token, 'What is pilot purgatory?')).status).toBe(200);
      const limited = await ask(send, t.token, 'What is pilot purgatory?');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeTruthy();
    } finally {
      await srv.stop();
    }
  });
});

describe('chat through an OpenAI-compatible server', () => {
  let srv: TestServer;
  let llm: LlmServer;
  let send: Send;
  let ana: TestSession;
  let admin: TestSession;
  beforeAll(async () => {
    llm = await startLlmServer();
    srv = await startTestServer({ env: { LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model', LLM_TIMEOUT_MS: '400', ADMIN_EMAILS: 'ops@example.org' } });
    send = sender(srv);
    ana = await sessionFor(srv, 'ana@example.org');
    admin = await sessionFor(srv, 'ops@example.org');
  });
  afterAll(async () => {
    await srv.stop();
    await llm.close();
  });

  it('sends the persona’s system prompt, parameters and the numbered passages, and returns the cited sources', async () => {
    llm.next = { kind: 'reply', content: 'Start with an inventory of systems [1] and train the people who use them [2].' };
    const token = await chatToken(send, ana, { mode: 'brief' });
    const res = await ask(send, token, 'What does the EU AI Act ask of deployers?');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ mode: 'llm', model: 'test-model' });
    expect(body.choices[0].message.content).toContain('[1]');
    expect(body.sources.filter((s: { cited: boolean }) => s.cited).map((s: { n: number }) => s.n)).toEqual([1, 2]);
    const sent = llm.requests.at(-1)!.body;
    const modelfileSystem = /SYSTEM """\n?([\s\S]*?)\n?"""/.exec(persona.modelfiles.get('brief/en')!)![1].trim().split('\n')[0];
    expect(sent.messages[0].role).toBe('system');
    expect(sent.messages[0].content).toContain(modelfileSystem);
    expect(sent.messages[0].content).toMatch(/\[1\] .+\n/);
    expect(sent.temperature).toBe(Number(/PARAMETER temperature (\S+)/.exec(persona.modelfiles.get('brief/en')!)![1]));
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'What does the EU AI Act ask of deployers?' });
  });

  it('streams the model’s answer as server-sent events and ends with the sources', async () => {
    llm.next = { kind: 'stream', deltas: ['Pilots stall ', 'without owners [1].'] };
    const token = await chatToken(send, ana);
    const res = await ask(send, token, 'Why do AI pilots stall?', { stream: true });
    const events = await readEvents(res);
    const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Pilots stall without owners [1].');
    expect(chunks.at(-1).sources.find((s: { n: number }) => s.n === 1).cited).toBe(true);
    expect(llm.requests.at(-1)!.body.stream).toBe(true);
  });

  it('turns a timeout, a 500 and a cut stream into clear errors, never a hanging connection', async () => {
    const token = await chatToken(send, ana);
    llm.next = { kind: 'hang' };
    const t0 = Date.now();
    const timeout = await ask(send, token, 'agents?');
    expect(timeout.status).toBe(504);
    expect((await timeout.json()).detail).toMatch(/did not answer within 400 ms/);
    expect(Date.now() - t0).toBeLessThan(5000);

    const hungStream = await readEvents(await ask(send, token, 'agents?', { stream: true }));
    expect(hungStream.find((e) => e.event === 'error')!.data).toMatch(/llm_timeout/);
    expect(hungStream.at(-1)!.data).toBe('[DONE]');

    llm.next = { kind: 'error500' };
    const failed = await ask(send, token, 'agents?');
    expect(failed.status).toBe(502);
    expect((await failed.json()).detail).toMatch(/HTTP 500/);

    llm.next = { kind: 'cut', deltas: ['Half an ans'] };
    const cut = await readEvents(await ask(send, token, 'agents?', { stream: true }));
    const error = cut.find((e) => e.event === 'error')!;
    expect(JSON.parse(error.data).error.type).toBe('llm_malformed');
    expect(cut.at(-1)!.data).toBe('[DONE]');

    // Operators see the failures in /api/health's detail view (admins only).
    expect((await send('/api/health?detail=true', { as: ana })).status).toBe(403);
    const detail = await (await send('/api/health?detail=true', { as: admin })).json();
    expect(detail).toMatchObject({ status: 'ok', llm: { configured: true, model: 'test-model' } });
    expect(detail.llm.failures).toMatchObject({ timeout: 2, http: 1, malformed: 1 });
    expect(await (await send('/api/health')).json()).toEqual({ status: 'ok' });
  });
});
