// Chat with the credential an agent already has (issue 16, items 8 and 11): an API key or OAuth token with
// the persona and language in the request, chat tokens kept for the anonymous case; what a caller that
// forgot persona_id is told; and sources that list only what the answer cites, each with its page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const question = { messages: [{ role: 'user', content: 'How should a deployer prepare for the EU AI Act obligations?' }] };
const cited = (text: string) => new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));

describe('extractive chat with an API key', () => {
  let srv: TestServer;
  let send: Send;
  let key: { headers: Record<string, string> };
  let persona: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { CHAT_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    key = await bearerFor(srv, (await sessionFor(srv, 'keyholder@example.org')).userId);
    persona = (await (await srv.get('/api/personas')).json()).items[0].persona_id;
  });
  afterAll(() => srv.stop());

  it('answers with the persona and language the request names, listing only the cited sources', async () => {
    const res = await send('/api/chat/completions', { method: 'POST', as: key, json: { ...question, persona_id: persona, lang: 'sl' } });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ persona_id: persona, lang: 'sl', mode: 'extractive' });
    const numbers = cited(body.choices[0].message.content);
    expect(numbers.size).toBeGreaterThan(0);
    expect(body.sources.map((s: { n: number }) => s.n).sort()).toEqual([...numbers].sort());
    for (const s of body.sources) {
      expect(s.cited).toBe(true);
      expect(s.page_url).toBe(`http://kb.test${s.url}`);
    }
  });

  it('tells a caller that forgot persona_id which personas there are', async () => {
    const res = await send('/api/chat/completions', { method: 'POST', as: key, json: question });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'persona_id'] });
    expect(body.hint).toContain(persona);
    expect(body.hint).toMatch(/GET \/api\/personas/);
    const unknown = await send('/api/chat/completions', { method: 'POST', as: key, json: { ...question, persona_id: 'nobody' } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).hint).toContain(persona);
  });

  it('without any credential: 401 that names every way in', async () => {
    const res = await send('/api/chat/completions', { method: 'POST', json: { ...question, persona_id: persona } });
    expect(res.status).toBe(401);
    const { hint } = await res.json();
    expect(hint).toMatch(/API key or OAuth token/);
    expect(hint).toMatch(/POST \/api\/chat\/auth/);
  });

  it('keeps chat tokens working, bound as before', async () => {
    const session = await sessionFor(srv, 'browser@example.org');
    const token = (await (await send('/api/chat/auth', { method: 'POST', as: session, json: { persona_id: persona, lang: 'en' } })).json()).token;
    const ok = await send('/api/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, json: question });
    expect(ok.status).toBe(200);
    const other = await send('/api/chat/completions', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, json: { ...question, lang: 'sl' } });
    expect(other.status).toBe(403);
  });
});

describe('through a language model', () => {
  let srv: TestServer;
  let llm: LlmServer;
  let send: Send;
  let key: { headers: Record<string, string> };
  beforeAll(async () => {
    llm = await startLlmServer();
    srv = await startTestServer({ env: { LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model' } });
    send = sender(srv);
    key = await bearerFor(srv, (await sessionFor(srv, 'llm-user@example.org')).userId);
  });
  afterAll(async () => {
    await srv.stop();
    await llm.close();
  });

  it('lists the one passage the answer cites, not the five it did not', async () => {
    llm.next = { kind: 'reply', content: 'Keep an inventory of your AI systems [2].' };
    const persona = (await (await srv.get('/api/personas')).json()).items[0].persona_id;
    const res = await send('/api/chat/completions', { method: 'POST', as: key, json: { ...question, persona_id: persona } });
    const body = await res.json();
    // The model saw several numbered passages ...
    expect((llm.requests.at(-1)!.body.messages[0].content.match(/^\[\d+\] /gm) ?? []).length).toBeGreaterThan(1);
    // ... and the answer lists the one it cited, numbered [1] as the first and only source (issue 42).
    const second = /^\[2\] (.+) \(\w+, (\S+)\)$/m.exec(llm.requests.at(-1)!.body.messages[0].content)!;
    expect(body.sources.map((s: { n: number; title: string; url: string }) => [s.n, s.title, s.url])).toEqual([[1, second[1], second[2]]]);
    expect(body.choices[0].message.content).toBe('Keep an inventory of your AI systems [1].');
    llm.next = { kind: 'stream', deltas: ['Nothing cited here.'] };
    const streamed = await send('/api/chat/completions', { method: 'POST', as: key, json: { ...question, persona_id: persona, stream: true } });
    const text = await streamed.text();
    const last = text.split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6))).at(-1);
    expect(last.sources).toEqual([]);
  });
});
