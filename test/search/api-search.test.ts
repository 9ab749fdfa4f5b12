// GET /api/search through the real server: every parameter at its bounds, FastAPI-shaped 422 bodies, type
// and types, the draft multiplier, agent links, snippets, caching, and posts found as soon as published.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAPIHono } from '@hono/zod-openapi';
import { sessionFor } from '../helpers/auth.ts';
import { sender, type Send } from '../helpers/http.ts';
import { startSearchServer, type SearchTestServer } from './helpers/search-server.ts';
import { registerSearchRoutes } from '../../api/search/index.ts';
import { RateLimiter } from '../../api/rate-limit/index.ts';
import { DEFAULT_HYBRID_TUNING } from '../../src/lib/search/index.ts';
import { fixtureContent } from '../helpers/content.ts';

interface Hit {
  type: string;
  id: string;
  title: string;
  url: string;
  api_url: string;
  date: string | null;
  snippet: string;
  score: number;
  draft: boolean;
}
interface Body {
  query: string;
  mode: string;
  total: number;
  hits: Hit[];
  warnings: string[];
}

// Two concepts with the same text, one a draft (a concept stub): their keyword scores are equal, so the
// draft's 0.7 multiplier shows in the scores as it is.
const TWIN = (draft: boolean) => `---
title: Quokkaflux drills
summary: Quokkaflux drills rehearse an AI outage with the people who would handle it.
tags: [risk, governance]
draft: ${draft}
sources:
  - type: video
    id: H9QI-gGWbdX
---
A quokkaflux drill walks a team through a failing assistant step by step.
`;

let contentDir: string;
let srv: SearchTestServer;
let send: Send;

beforeAll(async () => {
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-search-content-'));
  fs.cpSync(fixtureContent(), contentDir, { recursive: true });
  fs.writeFileSync(path.join(contentDir, 'knowledge', 'zz-twin-page.md'), TWIN(false));
  fs.writeFileSync(path.join(contentDir, 'knowledge', 'zz-twin-stub.md'), TWIN(true));
  srv = await startSearchServer({ contentDir });
  send = sender(srv);
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(contentDir, { recursive: true, force: true });
});

async function search(query: string, status = 200): Promise<Body> {
  const res = await srv.get(`/api/search?${query}`);
  expect(res.status, query).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return res.json();
}
async function detail(query: string) {
  const res = await srv.get(`/api/search?${query}`);
  expect(res.status, query).toBe(422);
  return (await res.json()).detail as { type: string; loc: (string | number)[]; msg: string; input: unknown; ctx?: Record<string, unknown> }[];
}

describe('parameters at their bounds', () => {
  it('q is required and at least one character', async () => {
    expect(await detail('')).toEqual([{ type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null }]);
    expect(await detail('q=')).toEqual([
      { type: 'string_too_short', loc: ['query', 'q'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } },
    ]);
    expect((await search('q=a')).query).toBe('a');
  });

  it('limit is 1..100, default 20', async () => {
    expect(await detail('q=ai&limit=0')).toEqual([
      { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
    ]);
    expect(await detail('q=ai&limit=101')).toEqual([
      { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
    ]);
    expect((await detail('q=ai&limit=ten'))[0]).toMatchObject({ type: 'int_parsing', loc: ['query', 'limit'], input: 'ten' });
    expect((await search('q=ai&limit=1')).hits).toHaveLength(1);
    const all = await search('q=ai&limit=100');
    expect(all.hits.length).toBeGreaterThan(20);
    expect(all.hits.length).toBeLessThanOrEqual(100);
    const byDefault = await search('q=ai');
    expect(byDefault.hits).toHaveLength(20);
    expect(byDefault.total).toBeGreaterThanOrEqual(all.hits.length);
  });

  it('booleans take what FastAPI takes and nothing else', async () => {
    for (const name of ['hybrid', 'draft', 'agent']) {
      expect((await detail(`q=ai&${name}=maybe`))[0]).toMatchObject({ type: 'bool_parsing', loc: ['query', name], input: 'maybe' });
    }
    expect((await search('q=ai&hybrid=0')).mode).toBe('keyword');
    expect((await search('q=ai&hybrid=yes')).mode).toBe('hybrid');
  });

  it('reports every invalid parameter in one 422', async () => {
    const d = await detail('limit=0&types=videos&hybrid=perhaps');
    expect(d.map((x) => x.loc.join('.')).sort()).toEqual(['query.hybrid', 'query.limit', 'query.q', 'query.types']);
  });
});

describe('types and the deprecated type', () => {
  it('types narrows to a comma-separated subset', async () => {
    const r = await search('q=governance&types=video,essay&limit=100');
    expect(r.hits.length).toBeGreaterThan(0);
    expect(new Set(r.hits.map((h) => h.type))).toEqual(new Set(['video', 'essay']));
    expect((await search('q=governance&types=%20persona%20,%20')).hits.every((h) => h.type === 'persona')).toBe(true);
    expect(r.warnings).toEqual([]);
  });

  it('an unknown type is a 422 naming the allowed ones', async () => {
    expect(await detail('q=ai&types=video,videos')).toEqual([
      {
        type: 'enum',
        loc: ['query', 'types'],
        msg: "Input should be a comma-separated list of 'video', 'knowledge', 'essay', 'digest', 'persona' or 'post'",
        input: 'video,videos',
        ctx: { expected: "'video', 'knowledge', 'essay', 'digest', 'persona' or 'post'" },
      },
    ]);
    expect((await detail('q=ai&type=videos'))[0]).toMatchObject({ type: 'enum', loc: ['query', 'type'], input: 'videos' });
  });

  it('type still works, and the response says it is deprecated', async () => {
    const res = await srv.get('/api/search?q=governance&type=essay');
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe('true');
    const body: Body = await res.json();
    expect(body.hits.length).toBeGreaterThan(0);
    expect(body.hits.every((h) => h.type === 'essay')).toBe(true);
    expect(body.warnings).toEqual(['The parameter "type" is deprecated; use "types" (a comma-separated list).']);
    const both = await search('q=governance&type=essay&types=persona');
    expect(both.hits.every((h) => h.type === 'persona')).toBe(true);
    expect(both.warnings).toHaveLength(2);
  });
});

describe('results', () => {
  it('each hit has its type, id, title, links, date, a snippet with the matched words marked, and a score', async () => {
    const r = await search('q=shadow%20AI');
    expect(r).toMatchObject({ query: 'shadow AI', mode: 'hybrid' });
    // The concept and the video about it lead, in either order.
    expect(r.hits.slice(0, 2).map((h) => h.id).sort()).toEqual(['H9QI-gGWbdX', 'shadow-ai']);
    const concept = r.hits.find((h) => h.id === 'shadow-ai')!;
    expect(concept).toMatchObject({ type: 'knowledge', id: 'shadow-ai', title: 'Shadow AI', url: '/knowledge/shadow-ai', api_url: '/api/knowledge/shadow-ai', date: null, draft: false });
    expect(concept.snippet).toContain('<mark>Shadow</mark> <mark>AI</mark>');
    const video = r.hits.find((h) => h.type === 'video')!;
    expect(video.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Weighted reciprocal rank fusion: no item scores more than weight / (k + 1) from each ranking.
    const { keywordWeight, vectorWeight, rrfK } = DEFAULT_HYBRID_TUNING;
    expect(scores[0]).toBeLessThanOrEqual(keywordWeight / (rrfK + 1) + vectorWeight / (rrfK + 1) + 1e-6);
  });

  it('keyword mode ranks by BM25 alone', async () => {
    const r = await search('q=shadow%20AI&hybrid=false');
    expect(r.mode).toBe('keyword');
    expect(r.hits[0].id).toBe('shadow-ai');
    expect(r.hits[0].score).toBeGreaterThan(1);
  });

  it('agent=true rewrites every link to the agent form', async () => {
    const r = await search('q=governance&agent=true&limit=50');
    expect(r.hits.length).toBeGreaterThan(5);
    const kinds: Record<string, string> = { video: 'videos', knowledge: 'knowledge', essay: 'essays', digest: 'digests', persona: 'personas' };
    for (const h of r.hits) {
      expect(h.url).toBe(`/api/${kinds[h.type]}/${h.id}?agent=true`);
      expect(h.api_url).toBe(`/api/${kinds[h.type]}/${h.id}`);
    }
    expect((await search('q=governance&limit=50')).hits.every((h) => !h.url.startsWith('/api/'))).toBe(true);
  });

  it('finds Slovenian words in any inflection and without diacritics, and forgives typos', async () => {
    expect((await search('q=podjetja')).hits.slice(0, 3).map((h) => h.id)).toContain('1y9_W_LjEhG');
    expect((await search('q=sole')).hits[0].id).toBe('CjEuz5EU6IJ'); // "šole", typed without the š
    expect((await search('q=halucination')).hits[0].id).toBe('hallucination');
    const typo = await search('q=promt%20injection&hybrid=false');
    expect(typo.hits[0].id).toBe('prompt-injection');
    expect(typo.hits[0].snippet).toContain('<mark>Prompt</mark> <mark>injection</mark>');
  });

  it('drafts (concept stubs) appear only with draft=true, their scores multiplied by 0.7', async () => {
    const hidden = await search('q=quokkaflux&hybrid=false');
    expect(hidden.hits.map((h) => h.id)).toEqual(['zz-twin-page']);
    const shown = await search('q=quokkaflux&hybrid=false&draft=true');
    const page = shown.hits.find((h) => h.id === 'zz-twin-page')!;
    const stub = shown.hits.find((h) => h.id === 'zz-twin-stub')!;
    expect(stub.draft).toBe(true);
    expect(stub.score).toBeCloseTo(0.7 * page.score, 5);
    const hybrid = await search('q=quokkaflux&draft=true');
    const hp = hybrid.hits.find((h) => h.id === 'zz-twin-page')!;
    const hs = hybrid.hits.find((h) => h.id === 'zz-twin-stub')!;
    expect(hs.score).toBeLessThanOrEqual(0.7 * hp.score + 1e-6);
    expect((await search('q=quokkaflux')).hits.some((h) => h.draft)).toBe(false);
  });

  it('a query of nothing searchable finds nothing rather than everything', async () => {
    expect(await search('q=%21%21%21')).toMatchObject({ total: 0, hits: [] });
    expect((await search('q=zzqxv%20wpplk')).hits).toEqual([]);
  });

  it('answers a repeated query from its cache and revalidates with the ETag', async () => {
    const first = await srv.get('/api/search?q=agents&limit=5');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await srv.get('/api/search?q=agents&limit=5', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('posts', () => {
  it('a post published through the API is found by the next search, and gone once deleted', async () => {
    const author = await sessionFor(srv, 'searcher@example.org', 'Searcher');
    const created = await send('/api/posts', { method: 'POST', as: author, json: { title: 'Zeptarine rota for review queues', summary: 'How we share the zeptarine review load.', tags: ['agents'] } });
    expect(created.status).toBe(201);
    const post = await created.json();
    expect((await search('q=zeptarine')).hits).toEqual([]); // a draft post is not searchable
    expect((await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: author, json: { body: 'A weekly zeptarine rotation keeps reviewers fresh. '.repeat(5) } })).status).toBe(200);
    expect((await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author })).status).toBe(202);
    const found = await search('q=zeptarine');
    expect(found.hits).toHaveLength(1);
    expect(found.hits[0]).toMatchObject({ type: 'post', id: post.post_id, title: 'Zeptarine rota for review queues', url: `/posts/${post.slug}`, api_url: `/api/posts/${post.slug}` });
    expect(found.hits[0].snippet).toContain('<mark>zeptarine</mark>');
    expect((await search('q=zeptarine&types=post&agent=true')).hits[0].url).toBe(`/api/posts/${post.slug}?agent=true`);
    expect((await search('q=zeptarine&types=video')).hits).toEqual([]);

    const related = await srv.get(`/api/posts/${post.post_id}/related`);
    expect(related.status).toBe(200);
    expect(((await related.json()) as Body).hits.every((h) => h.id !== post.post_id)).toBe(true);

    expect((await send(`/api/posts/${post.post_id}`, { method: 'DELETE', as: author })).status).toBe(204);
    expect((await search('q=zeptarine')).hits).toEqual([]);
    expect((await srv.get(`/api/posts/${post.post_id}/related`)).status).toBe(404);
  });
});

describe('the interface description', () => {
  it('documents both routes, the deprecated type parameter and the SearchResponse schema', () => {
    const app = new OpenAPIHono();
    registerSearchRoutes(app, { content: () => ({}) as never, search: () => ({}) as never, searchLimiter: new RateLimiter({ limit: 1, windowMs: 60_000 }) });
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '3.0' } });
    const params = doc.paths!['/api/search']!.get!.parameters as { name: string; deprecated?: boolean }[];
    expect(params.map((p) => p.name).sort()).toEqual(['agent', 'draft', 'hybrid', 'lang', 'limit', 'offset', 'q', 'since', 'tag', 'type', 'types']);
    expect(params.find((p) => p.name === 'type')!.deprecated).toBe(true);
    expect(Object.keys(doc.paths!).filter((p) => p.endsWith('/related')).sort()).toEqual([
      '/api/digests/{date}/related',
      '/api/essays/{slug}/related',
      '/api/knowledge/{slug}/related',
      '/api/personas/{persona_id}/related',
      '/api/posts/{post_id}/related',
      '/api/videos/{video_id}/related',
    ]);
    expect(doc.components!.schemas).toHaveProperty('SearchResponse');
  });
});
