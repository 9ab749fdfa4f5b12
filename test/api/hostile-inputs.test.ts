// The worst inputs a caller can send to the routes whose input reaches a regex or a parser, beyond search
// (test/search/hostile-queries.test.ts): each is answered within a second while /api/health stays
// responsive. Before the note title was parsed line by line, a note whose heading was "# a", 40,000 spaces
// and "x" held the event loop for ~7 s on PUT and on every later list of that person's notes (the title
// regexes backtracked quadratically); at the content cap it would have been minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { timed } from '../helpers/responsive.ts';
import { connect, person, type Person } from './personal-knowledge/helpers.ts';

const LIMIT_MS = 1000;
/** The note content cap (NotePutBody), less room for the characters around the filler. */
const N = 200_000 - 40;
const spaces = (n: number) => ' '.repeat(n);

/** Note contents at the content cap, each aimed at a way a title or front-matter parser can go quadratic. */
const WORST_NOTES: Record<string, string> = {
  'a heading of spaces, then a letter': `# a${spaces(N)}x`,
  'a heading of closing hashes and spaces, then a letter': `# a${' #'.repeat(N / 2)}x`,
  'a heading of tabs, then a letter': `## a${'\t'.repeat(N)}x`,
  'a front-matter title of spaces, then a letter': `---\ntitle: a${spaces(N)}x\n---\nbody\n`,
  'a quoted front-matter title of spaces and quotes': `---\ntitle: "${'" '.repeat(N / 2)}x\n---\n`,
  'an unclosed front matter of blank lines': `---\n${'\n'.repeat(N)}# late`,
  'front matter of title-less lines, never closed': `---\n${'title:\n'.repeat(N / 7)}`,
  'lines of seven hashes (no heading)': '####### a\n'.repeat(N / 10),
  'a heading of carriage returns': `# a${'\r'.repeat(N)}x`,
};

let srv: TestServer;
let p: Person;

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '100000' } });
  p = person(srv, 'hostile-notes@example.org', 'Hostile Notes');
  expect(await connect(p)).toBe('/account?pk=connected');
}, 60_000);
afterAll(() => srv?.stop());

/** One request, timed with the health probe: its status, body, and both times within the limit. */
async function within(label: string, call: () => Promise<Response>): Promise<{ status: number; body: any }> {
  let status = 0;
  let body: any;
  const t = await timed(srv, async () => {
    const res = await call();
    status = res.status;
    body = await res.json();
  });
  expect(t.ms, `${label}: the request`).toBeLessThan(LIMIT_MS);
  expect(t.healthMs, `/api/health during ${label}`).toBeLessThan(LIMIT_MS);
  return { status, body };
}

describe('the note routes, with the worst contents at the content cap', () => {
  const slugs = Object.keys(WORST_NOTES).map((_, i) => `hostile-${i}`);

  it.each(Object.entries(WORST_NOTES).map(([name, content], i) => [name, content, slugs[i]]))('%s: PUT, GET and history each answer within a second', async (name, content, slug) => {
    expect(content.length).toBeLessThanOrEqual(200_000);
    const put = await within(`PUT (${name})`, () => p.api(`/api/me/personal-knowledge/notes/${slug}`, { method: 'PUT', json: { content, base_blob: null } }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ slug, action: 'create' });
    expect(put.body.title.length).toBeLessThanOrEqual(200);

    const get = await within(`GET (${name})`, () => p.api(`/api/me/personal-knowledge/notes/${slug}`));
    expect(get.status).toBe(200);
    expect(get.body.content).toBe(content);
    expect(get.body.title).toBe(put.body.title);

    const history = await within(`history (${name})`, () => p.api(`/api/me/personal-knowledge/history?slug=${slug}`));
    expect(history.status).toBe(200);
    expect(history.body.map((h: { action: string }) => h.action)).toEqual(['create']);
  });

  it('titles them as the first heading or front-matter title says, trimmed and cut at 200 characters', async () => {
    const titles = Object.fromEntries(
      (await within('list', () => p.api('/api/me/personal-knowledge/notes'))).body.items.map((n: { slug: string; title: string }) => [n.slug, n.title]),
    );
    expect(titles['hostile-0']).toBe(`a${spaces(199)}`);
    expect(titles['hostile-3']).toBe(`a${spaces(199)}`);
    expect(titles['hostile-5']).toBe('late');
    // Seven hashes make no heading, and a title: without a value is no title: the slug stands in.
    expect(titles['hostile-6']).toBe('hostile-6');
    expect(titles['hostile-7']).toBe('hostile-7');
    // A lone carriage return ends a line, as in CommonMark.
    expect(titles['hostile-8']).toBe('a');
  });

  it('lists every such note, and the whole history, within a second', async () => {
    const list = await within('the list of notes', () => p.api('/api/me/personal-knowledge/notes'));
    expect(list.status).toBe(200);
    expect(list.body.items.map((n: { slug: string }) => n.slug).sort()).toEqual([...slugs].sort());
    const history = await within('the history', () => p.api('/api/me/personal-knowledge/history?limit=100'));
    expect(history.status).toBe(200);
    expect(history.body).toHaveLength(slugs.length);
  });

  it('refuses hostile preconditions, slugs and oversized contents at once', async () => {
    const badMatch = await within('PUT with a hostile If-Match', () =>
      p.api('/api/me/personal-knowledge/notes/hostile-0', { method: 'PUT', json: { content: 'x' }, headers: { 'If-Match': `"${'a'.repeat(39)}${'"'.repeat(8000)}` } }),
    );
    expect(badMatch.status).toBe(422);
    expect(badMatch.body.detail[0].loc).toEqual(['header', 'if-match']);
    const badSlug = await within('GET with a hostile slug', () => p.api(`/api/me/personal-knowledge/notes/${'a-'.repeat(4000)}!`));
    expect(badSlug.status).toBe(422);
    const tooLong = await within('PUT over the content cap', () => p.api('/api/me/personal-knowledge/notes/too-long', { method: 'PUT', json: { content: `# a${spaces(200_000)}x`, base_blob: null } }));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'content'] });
  });

  it('deletes each within a second', async () => {
    for (const slug of slugs) {
      const del = await within(`DELETE ${slug}`, () => p.api(`/api/me/personal-knowledge/notes/${slug}`, { method: 'DELETE' }));
      expect(del.status).toBe(200);
      expect(del.body.action).toBe('delete');
    }
    expect((await p.api('/api/me/personal-knowledge/notes')).status).toBe(200);
  });
});
