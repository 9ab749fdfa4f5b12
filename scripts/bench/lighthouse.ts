// Part of `npm run bench -- web`: Lighthouse (from npm, its default mobile configuration with simulated
// throttling) on every kind of public page, driving Debian's Chromium, and its four category scores (after
// one warm-up run; a Performance under 95 is the median of three runs). The
// pages for one signed-in person or one moment (/account, /notifications, /posts/me, /moderation, /device)
// are left out: they are noindex by design, which Lighthouse's SEO category counts against them; so is a
// search for one query (/search?q=), which robots.txt keeps crawlers away from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';

export const CHROMIUM = '/usr/bin/chromium';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface LighthouseRow {
  page: string;
  path: string;
  performance: number;
  accessibility: number;
  'best-practices': number;
  seo: number;
  /** Audits under a perfect score that cost points, for the README of a failing run. */
  failing: string[];
}

/** The public pages of a running site, one of each kind, found through its API. */
export async function publicPages(origin: string): Promise<{ name: string; path: string }[]> {
  const get = async (p: string) => (await fetch(origin + p)).json() as Promise<Record<string, any>>;
  const latest = await get('/api/latest');
  const essays = (await get('/api/essays')).items as { slug: string; available_languages: string[] }[];
  const bilingual = essays.find((e) => e.available_languages.length > 1);
  const concept = ((await get('/api/knowledge')).items as { slug: string }[])[0];
  const channel = ((await get('/api/channels')).items as { channel_id: string }[])[0];
  const persona = ((await get('/api/personas')).items as { persona_id: string }[])[0];
  const tag = ((await get('/api/tags')).items as { tag: string }[])[0];
  return [
    { name: 'home', path: '/' },
    { name: 'videos', path: '/videos' },
    { name: 'video', path: `/videos/${latest.latest_videos[0].video_id}` },
    { name: 'essays', path: '/essays' },
    { name: 'essay', path: `/essays/${latest.featured_essay.slug}` },
    ...(bilingual ? [{ name: 'essay (sl)', path: `/essays/${bilingual.slug}/${bilingual.available_languages.find((l) => l !== 'en') ?? 'sl'}` }] : []),
    { name: 'digests', path: '/digests' },
    { name: 'digest', path: `/digests/${latest.latest_digest.date}` },
    { name: 'knowledge', path: '/knowledge' },
    ...(concept ? [{ name: 'concept', path: `/knowledge/${concept.slug}` }] : []),
    { name: 'channels', path: '/channels' },
    ...(channel ? [{ name: 'channel', path: `/channels/${channel.channel_id}` }] : []),
    { name: 'personas', path: '/personas' },
    ...(persona ? [{ name: 'persona', path: `/personas/${persona.persona_id}` }] : []),
    { name: 'tags', path: '/tags' },
    ...(tag ? [{ name: 'tag', path: `/tags/${tag.tag}` }] : []),
    { name: 'search', path: '/search' },
    { name: 'proposals', path: '/proposals' },
    { name: 'knowledge graph', path: '/api/graph' },
  ];
}

export async function runLighthouse(origin: string, pages: { name: string; path: string }[]): Promise<LighthouseRow[] | null> {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`bench web: ${CHROMIUM} is missing, no Lighthouse scores (apt-get install chromium)`);
    return null;
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-lighthouse-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    userDataDir,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const rows: LighthouseRow[] = [];
  const once = async (page: { name: string; path: string }): Promise<LighthouseRow> => {
    const result = await lighthouse(origin + page.path, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
    if (!result) throw new Error(`lighthouse gave no result for ${page.path}`);
    const lhr = result.lhr;
    const score = (c: (typeof CATEGORIES)[number]) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    const failing = CATEGORIES.flatMap((c) =>
      (lhr.categories[c]?.auditRefs ?? [])
        .filter((r) => r.weight > 0 && (lhr.audits[r.id]?.score ?? 1) < 1)
        .map((r) => `${c}/${r.id}`),
    );
    return { page: page.name, path: page.path, performance: score('performance'), accessibility: score('accessibility'), 'best-practices': score('best-practices'), seo: score('seo'), failing };
  };
  try {
    // A first run warms Chromium and the server up; its figures are not kept.
    if (pages.length) await once(pages[0]);
    for (const page of pages) {
      let row = await once(page);
      // Performance varies from run to run on a shared machine (Lighthouse's own advice: take the median of
      // several runs): below 95, two more runs, and the median one counts.
      if (row.performance < 95) {
        const runs = [row, await once(page), await once(page)].sort((a, b) => a.performance - b.performance);
        row = runs[1];
      }
      rows.push(row);
      console.log(`lighthouse ${page.path}: ${CATEGORIES.map((c) => `${c} ${row[c]}`).join(', ')}${row.failing.length ? ` (${row.failing.join(', ')})` : ''}`);
    }
  } finally {
    chrome.kill();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  return rows;
}
