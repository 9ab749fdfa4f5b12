// GET /api/search's pages and filters through the real server (issue 42, item 2): offset with total and
// a next link that walks every match once, lang, tag and since, each unknown parameter named in warnings
// with what to use instead, the same in /openapi.json and /api, and the MCP search tool through the
// official SDK client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearchServer, type SearchTestServer } from './helpers/search-server.ts';

interface Hit {
  type: string;
  id: string;
  title: string;
  url: string;
  api_url: string;
  lang: string;
  date: string | null;
  score: number;
}
interface Body {
  total: number;
  limit: number;
  offset: number;
  next: string | null;
  hits: Hit[];
  warnings: string[];
}

let srv: SearchTestServer;
beforeAll(async () => {
  srv = await startSearchServer();
});
afterAll(() => srv.stop());

async function get(pathAndQuery: string): Promise<Body> {
  const res = await srv.get(pathAndQuery);
  expect(res.status, pathAndQuery).toBe(200);
  return res.json();
}
const search = (query: string) => get(`/api/search?${query}`);
async function detail(query: string) {
  const res = await srv.get(`/api/search?${query}`);
  expect(res.status, query).toBe(422);
  return (await res.json()).detail as { type: string; loc: string[]; input: unknown }[];
}
const key = (h: Hit) => `${h.type}:${h.id}`;

describe('offset, total and next', () => {
  for (const mode of ['hybrid=true', 'hybrid=false']) {
    it(`following next from the first page lists every match once, as one long page does (${mode})`, async () => {
      const whole = await search(`q=governance&${mode}&limit=100`);
      // Every match total counts is on the one long page: pages can reach it.
      expect(whole.total).toBeGreaterThan(20);
      expect(whole.hits).toHaveLength(whole.total);
      expect(whole).toMatchObject({ limit: 100, offset: 0, next: null });

      const pages: Body[] = [];
      for (let url: string | null = `/api/search?q=governance&${mode}&limit=7`; url !== null; url = pages.at(-1)!.next) {
        pages.push(await get(url));
        expect(pages.length).toBeLessThan(20);
      }
      expect(pages).toHaveLength(Math.ceil(whole.total / 7));
      expect(pages.map((p) => p.offset)).toEqual(pages.map((_, i) => 7 * i));
      expect(pages.every((p) => p.total === whole.total && p.limit === 7 && p.warnings.length === 0)).toBe(true);
      expect(pages.flatMap((p) => p.hits)).toEqual(whole.hits);
      expect(pages.slice(0, -1).every((p) => p.hits.length === 7)).toBe(true);
    });
  }

  it('next keeps the query, its filters and its flags, canonically spelled', async () => {
    const first = await search('q=ai%20governance&types=video,essay&lang=en&tag=governance&since=2026-10-01&hybrid=0&agent=yes&limit=2');
    expect(first.next).toBe('/api/search?q=ai%20governance&types=video%2Cessay&lang=en&tag=governance&since=2026-10-01&hybrid=false&limit=2&offset=2&agent=true');
    const second = await get(first.next!);
    expect(second.offset).toBe(2);
    expect(second.hits.length).toBeGreaterThan(0);
    expect(second.hits.every((h) => ['video', 'essay'].includes(h.type) && h.date! >= '2026-10-01' && h.url.endsWith('?agent=true'))).toBe(true);
    expect(second.hits.map(key)).not.toEqual(first.hits.map(key));
  });

  it('an offset past the end answers no hits and says where the last page starts', async () => {
    const whole = await search('q=governance&limit=100');
    const past = await search('q=governance&limit=10&offset=1000000000000');
    expect(past).toMatchObject({ total: whole.total, hits: [], next: null });
    expect(past.warnings).toEqual([`offset 1000000000000 is past the last hit (total ${whole.total}): the last page starts at offset ${Math.floor((whole.total - 1) / 10) * 10}.`]);
  });

  it('offset is an integer >= 0', async () => {
    expect(await detail('q=ai&offset=-1')).toMatchObject([{ type: 'greater_than_equal', loc: ['query', 'offset'], input: '-1' }]);
    expect(await detail('q=ai&offset=two')).toMatchObject([{ type: 'int_parsing', loc: ['query', 'offset'], input: 'two' }]);
  });
});

describe('filters', () => {
  it('lang keeps the items with a version in that language', async () => {
    const essays = (await get('/api/essays')) as unknown as { items: { slug: string; available_languages: string[] }[] };
    const langsOf = (h: Hit) => (h.type === 'essay' ? essays.items.find((e) => e.slug === h.id)!.available_languages : [h.lang]);
    const all = await search('q=podjetja&limit=100');
    const sl = await search('q=podjetja&lang=sl&limit=100');
    const en = await search('q=podjetja&lang=en&limit=100');
    expect(sl.hits.map((h) => h.id)).toContain('1y9_W_LjEhG');
    expect(en.hits.map((h) => h.id)).not.toContain('1y9_W_LjEhG');
    expect(sl.hits.every((h) => langsOf(h).includes('sl'))).toBe(true);
    expect(en.hits.every((h) => langsOf(h).includes('en'))).toBe(true);
    expect(sl.total).toBe(sl.hits.length);
    expect(sl.total).toBeLessThan(all.total);
    expect((await detail('q=ai&lang=de'))[0]).toMatchObject({ type: 'enum', loc: ['query', 'lang'], input: 'de' });
  });

  it('tag keeps the items carrying it, and an unknown tag says so', async () => {
    const all = await search('q=ai&limit=100');
    const tagged = await search('q=ai&tag=governance&limit=100');
    expect(tagged.hits.length).toBeGreaterThan(3);
    expect(tagged.hits.length).toBeLessThan(all.hits.length);
    for (const h of tagged.hits) {
      const item = (await get(h.api_url)) as unknown as { tags: string[] };
      expect(item.tags, key(h)).toContain('governance');
    }
    expect(tagged.warnings).toEqual([]);
    const none = await search('q=ai&tag=Governance');
    expect(none).toMatchObject({ total: 0, hits: [], warnings: ['No item carries the tag "Governance": GET /api/tags lists the tags in use.'] });
    expect((await detail(`q=ai&tag=${'x'.repeat(65)}`))[0]).toMatchObject({ type: 'string_too_long', loc: ['query', 'tag'] });
  });

  it('since keeps the items dated on or after that day', async () => {
    const all = await search('q=ai&limit=100');
    const recent = await search('q=ai&since=2026-11-15&limit=100');
    expect(all.hits.some((h) => h.date === null)).toBe(true);
    expect(all.hits.some((h) => h.date !== null && h.date < '2026-11-15')).toBe(true);
    expect(recent.hits.length).toBeGreaterThan(3);
    expect(recent.hits.every((h) => h.date !== null && h.date >= '2026-11-15')).toBe(true);
    expect(recent.total).toBeLessThan(all.total);
    expect((await detail('q=ai&since=2026-02-30'))[0]).toMatchObject({ type: 'date_from_datetime_parsing', loc: ['query', 'since'] });
  });
});

describe('unknown parameters', () => {
  it('each is named in warnings with what to use instead, and the hits are those of the query without it', async () => {
    const plain = await search('q=governance');
    expect(plain.warnings).toEqual([]);
    const odd = await search('q=governance&cursor=abc&page=2&mode=semantic&per_page=5&Limit=3&foo=bar');
    expect(odd.hits).toEqual(plain.hits);
    expect(odd.warnings).toEqual([
      'Unknown parameter "Limit" was ignored: use "limit" (parameter names are lower case).',
      'Unknown parameter "cursor" was ignored: use "offset" (hits to skip; the response\'s "next" is the following page).',
      'Unknown parameter "foo" was ignored; /api/search takes q, types, hybrid, draft, limit, offset, lang, tag, since and agent.',
      'Unknown parameter "mode" was ignored: search is hybrid by default; use "hybrid=false" for keyword only.',
      'Unknown parameter "page" was ignored: use "offset" (hits to skip; the response\'s "next" is the following page).',
      'Unknown parameter "per_page" was ignored: use "limit" (1..100).',
    ]);
    // The answer without them is still the plain one (the cache keeps them apart).
    expect((await search('q=governance')).warnings).toEqual([]);
  });

  it('past ten, one line counts the rest', async () => {
    const names = Array.from({ length: 14 }, (_, i) => `x${String(i).padStart(2, '0')}=1`).join('&');
    const r = await search(`q=governance&${names}`);
    expect(r.warnings).toHaveLength(11);
    expect(r.warnings[0]).toMatch(/^Unknown parameter "x00" was ignored/);
    expect(r.warnings[10]).toBe('4 more unknown parameters were ignored.');
  });

  it('related items name theirs too', async () => {
    const r = await get('/api/videos/H9QI-gGWbdX/related?limit=3');
    expect(r.hits).toHaveLength(5);
    expect(r.warnings).toEqual(['Unknown parameter "limit" was ignored: use "k" (1..20).']);
    expect((await get('/api/videos/H9QI-gGWbdX/related?k=3')).warnings).toEqual([]);
  });
});

describe('documented', () => {
  it('in /openapi.json', async () => {
    const doc = await (await srv.get('/openapi.json')).json();
    const params = doc.paths['/api/search'].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const param = (name: string) => params.find((p) => p.name === name)?.schema;
    expect(param('offset')).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(param('lang')).toMatchObject({ enum: ['en', 'sl'] });
    expect(param('tag')).toMatchObject({ type: 'string', maxLength: 64 });
    expect(param('since')).toMatchObject({ type: 'string', format: 'date' });
    expect(Object.keys(doc.components.schemas.SearchResponse.properties)).toEqual(expect.arrayContaining(['total', 'limit', 'offset', 'next', 'warnings']));
  });

  it('in the reference at /api', async () => {
    const text = await (await srv.get('/api', { headers: { Accept: 'text/markdown' } })).text();
    expect(text).toContain('`types`, `lang`, `tag`, `since`, `hybrid`, `draft`, `limit` 1..100, `offset`');
    expect(text).toMatch(/Lists take `limit` and `offset` \(search too: it answers `total` and `next`/);
  });
});

describe('the MCP search tool', () => {
  type Result = CallToolResult & { structuredContent?: Record<string, any> };
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'kb-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    await client.listTools(); // the client then checks each result against the tool's output schema
  });
  afterAll(() => client.close());
  const call = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'search', arguments: args })) as Result;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r.structuredContent!;
  };
  const ids = (r: Record<string, any>) => (r.hits as { type: string; id: string }[]).map((h) => `${h.type}:${h.id}`);

  it('pages with offset and next_offset', async () => {
    const whole = await search('q=governance&limit=100');
    const first = await call({ query: 'governance', limit: 10 });
    expect(first).toMatchObject({ total: whole.total, next_offset: 10, warnings: [] });
    const second = await call({ query: 'governance', limit: 10, offset: first.next_offset });
    expect([...ids(first), ...ids(second)]).toEqual(whole.hits.slice(0, 20).map(key));
    const last = await call({ query: 'governance', limit: 10, offset: Math.floor((whole.total - 1) / 10) * 10 });
    expect(last.next_offset).toBeNull();
  });

  it('filters by lang, tag and since as the HTTP search does', async () => {
    const filtered = await call({ query: 'ai', lang: 'en', tag: 'governance', since: '2026-11-01', limit: 50 });
    const http = await search('q=ai&lang=en&tag=governance&since=2026-11-01&limit=50');
    expect(filtered.hits.length).toBeGreaterThan(0);
    expect(ids(filtered)).toEqual(http.hits.map(key));
    expect(filtered.hits.every((h: Hit) => h.date! >= '2026-11-01' && h.lang === 'en')).toBe(true);
    expect(ids(filtered)).not.toEqual(ids(await call({ query: 'ai', limit: 50 })));
    expect((await call({ query: 'ai', tag: 'nope' })).warnings).toEqual(['No item carries the tag "nope": GET /api/tags lists the tags in use.']);
    const bad = (await client.callTool({ name: 'search', arguments: { query: 'ai', since: 'last week' } })) as Result;
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toMatch(/since is a date YYYY-MM-DD/);
  });
});
