// A hit's language and links follow the passage that matched (issue 42, item 3), through the real server:
// an English question about an essay in both languages shows its English passage and links its English
// page, a Slovenian one shows the Slovenian passage with lang "sl" and links /essays/<slug>/sl, and every
// link of the hit leads to that version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Hit {
  type: string;
  id: string;
  url: string;
  api_url: string;
  page_url: string;
  lang: string;
  snippet: string;
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

const search = async (q: string, extra = ''): Promise<Hit[]> => {
  const res = await srv.get(`/api/search?q=${encodeURIComponent(q)}${extra}`);
  expect(res.status).toBe(200);
  return (await res.json()).hits;
};
const essay = (hits: Hit[], slug: string) => hits.find((h) => h.type === 'essay' && h.id === slug)!;
const text = (snippet: string) => snippet.replace(/<\/?mark>/g, '');

describe('a hit in the language of the passage that matched', () => {
  it('an English question shows the English passage of an essay in both languages, and links its English page', async () => {
    const hits = await search('measuring ROI of AI projects');
    const top = hits[0];
    expect(top).toMatchObject({ type: 'essay', id: 'measuring-ai-roi-honestly', lang: 'en', url: '/essays/measuring-ai-roi-honestly', api_url: '/api/essays/measuring-ai-roi-honestly' });
    expect(top.page_url).toMatch(/^https?:\/\/[^/]+\/essays\/measuring-ai-roi-honestly$/);
    // Before: "Pošteno merjenje donosnosti umetne inteligence" under lang "en" and the English link.
    expect(text(top.snippet)).not.toMatch(/[čšž]|Pošteno|donosnost/i);
    expect(top.snippet).toMatch(/<mark>(ROI|measur\w*)<\/mark>/i);
  });

  it('a Slovenian question shows the Slovenian passage, says lang "sl" and links /essays/<slug>/sl', async () => {
    const hit = essay(await search('merjenje donosnosti umetne inteligence'), 'measuring-ai-roi-honestly');
    expect(hit).toMatchObject({ lang: 'sl', url: '/essays/measuring-ai-roi-honestly/sl', api_url: '/api/essays/measuring-ai-roi-honestly?lang=sl' });
    expect(hit.page_url).toMatch(/^https?:\/\/[^/]+\/essays\/measuring-ai-roi-honestly\/sl$/);
    expect(text(hit.snippet)).toMatch(/donosnosti/);
    // The page and the JSON it links are that version.
    const page = await srv.get(hit.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/lang="sl"/);
    const doc = await (await srv.get(hit.api_url)).json();
    expect(JSON.stringify(doc)).toMatch(/Pošteno merjenje donosnosti/);
    // Agents get the JSON of that version, ?agent=true kept.
    const agent = essay(await search('merjenje donosnosti umetne inteligence', '&agent=true'), 'measuring-ai-roi-honestly');
    expect(agent.url).toBe('/api/essays/measuring-ai-roi-honestly?lang=sl&agent=true');
    expect((await srv.get(agent.url)).status).toBe(200);
  });

  it('an essay found only through the translation of an English word shows and links its English version', async () => {
    // "governance" meets the Slovenian "upravljanje" of this essay's Slovenian version only.
    const hit = essay(await search('governance', '&limit=50'), 'knowledge-management-hidden-prerequisite');
    expect(hit).toMatchObject({ lang: 'en', url: '/essays/knowledge-management-hidden-prerequisite' });
    expect(text(hit.snippet)).not.toMatch(/[čšž]|upravljanje/i);
  });

  it('keeps items in one language as they were: their own language and page', async () => {
    const hits = await search('umetna inteligenca v šolah');
    expect(hits[0]).toMatchObject({ type: 'video', id: 'CjEuz5EU6IJ', lang: 'sl', url: '/videos/CjEuz5EU6IJ' });
    for (const h of await search('shadow AI')) if (h.type !== 'essay') expect(h.url).not.toMatch(/\/sl$|lang=/);
  });
});
