import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { loadSnapshot, loadVideos, ContentError } from '../../src/lib/content/load.ts';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { linkUrls, markdownLinks, parseMarkdown } from '../../src/lib/content/markdown.ts';

const temps: string[] = [];
function corpus(videos = 20, seed = 7): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-content-'));
  temps.push(dir);
  generateCorpus({ dir, videos, seed });
  return dir;
}
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function problemsOf(dir: string): string[] {
  try {
    loadSnapshot(dir);
  } catch (err) {
    if (err instanceof ContentError) return err.problems;
    throw err;
  }
  return [];
}

function firstFile(dir: string, sub: string): string {
  return path.join(dir, sub, fs.readdirSync(path.join(dir, sub)).sort()[0]);
}

describe('the sample knowledge base', () => {
  let snap: Snapshot;
  beforeAll(() => {
    snap = loadSnapshot(path.resolve('content'));
  });

  it('has the size the product asks for', () => {
    expect(snap.channels.length).toBeGreaterThanOrEqual(6);
    expect(snap.videos.length).toBeGreaterThanOrEqual(60);
    expect(new Set(snap.videos.map((v) => v.date)).size).toBeGreaterThanOrEqual(30);
    expect(snap.essays.length).toBeGreaterThanOrEqual(10);
    expect(snap.essays.filter((e) => e.languages.includes('sl')).length).toBeGreaterThanOrEqual(4);
    expect(snap.digests.length).toBeGreaterThanOrEqual(14);
    expect(snap.concepts.length).toBeGreaterThanOrEqual(40);
    expect(snap.concepts.filter((c) => c.draft).length).toBeGreaterThanOrEqual(5);
    expect(snap.personas.length).toBeGreaterThanOrEqual(4);
    for (const p of snap.personas) {
      for (const mode of p.modes) for (const lang of ['en', 'sl']) expect(p.modelfiles.has(`${mode}/${lang}`)).toBe(true);
      expect(p.modes.length).toBeGreaterThanOrEqual(2);
    }
    expect(snap.skills.length).toBeGreaterThanOrEqual(3);
  });

  it('has digests in the exact shape, linking only to existing videos', () => {
    for (const d of snap.digests) {
      const lines = d.content.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^# \S/);
      expect(lines[1]).toBe('');
      expect(lines[2]).not.toMatch(/^#/);
      expect(d.items.map((i) => i.number)).toEqual([1, 2, 3, 4, 5]);
      expect(d.content.match(/^## [1-5]\. /gm)).toHaveLength(5);
      expect(d.content.match(/^Sources: \[.+\]\(\/videos\/[A-Za-z0-9_-]+\)/gm)).toHaveLength(5);
      for (const i of d.items) for (const s of i.sources) expect(snap.videosById.has(s.video_id)).toBe(true);
    }
  });

  it('links every knowledge concept to sources that exist', () => {
    for (const c of snap.concepts) {
      expect(c.sources.length).toBeGreaterThan(0);
      for (const s of c.sources) {
        if (s.type === 'video') expect(snap.videosById.has(s.id)).toBe(true);
        if (s.type === 'essay') expect(snap.essaysBySlug.has(s.id)).toBe(true);
      }
    }
  });
});

describe('loadVideos', () => {
  it('gives the videos loadSnapshot gives, in the same order, with and without the parse cache', () => {
    const dir = corpus(30, 4);
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-videos-cache-'));
    temps.push(cacheDir);
    const all = loadSnapshot(dir).videos;
    expect(all.length).toBe(30);
    expect(loadVideos(dir)).toEqual(all);
    expect(loadVideos(dir, { cacheDir })).toEqual(all);
    expect(loadVideos(dir, { cacheDir })).toEqual(all); // from the cache this time
  });

  it('names a broken video file, and ignores a broken file of another kind', () => {
    const dir = corpus(10, 5);
    const concept = firstFile(dir, 'knowledge');
    fs.writeFileSync(concept, fs.readFileSync(concept, 'utf8').replace(/^title: .*$/m, 'title: [unclosed'));
    expect(loadVideos(dir).length).toBe(10);
    const video = firstFile(dir, 'videos');
    fs.writeFileSync(video, fs.readFileSync(video, 'utf8').replace(/^date: .*$/m, 'date: 2026-13-45'));
    expect(() => loadVideos(dir)).toThrow(ContentError);
    try {
      loadVideos(dir);
    } catch (err) {
      expect((err as ContentError).problems).toEqual([expect.stringMatching(new RegExp(`^videos/${path.basename(video)}: date`))]);
    }
  });
});

describe('loadSnapshot validation', () => {
  it('loads a generated corpus and identifies it by a content hash', () => {
    const a = loadSnapshot(corpus(20, 1));
    const b = loadSnapshot(corpus(20, 1));
    const c = loadSnapshot(corpus(20, 2));
    expect(a.videos).toHaveLength(20);
    expect(a.contentHash).toBe(b.contentHash);
    expect(a.contentHash).not.toBe(c.contentHash);
  });

  it('names the file and the field of a wrong value', () => {
    const dir = corpus();
    const file = firstFile(dir, 'videos');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^date: .*$/m, 'date: 2026-13-45'));
    const problems = problemsOf(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^videos/${path.basename(file)}: date: expected a date YYYY-MM-DD`));
  });

  it('reports every problem at once, across files', () => {
    const dir = corpus();
    const video = firstFile(dir, 'videos');
    fs.writeFileSync(video, fs.readFileSync(video, 'utf8').replace(/^channel: .*$/m, 'channel: no-such-channel'));
    const channel = firstFile(dir, 'channels');
    fs.writeFileSync(channel, fs.readFileSync(channel, 'utf8').replace(/^feed_url: .*$/m, 'feed_url: not a url'));
    const problems = problemsOf(dir);
    expect(problems.some((p) => p.includes('channel: unknown channel "no-such-channel"'))).toBe(true);
    expect(problems.some((p) => p.startsWith(`channels/${path.basename(channel)}: feed_url:`))).toBe(true);
  });

  it('refuses unknown front-matter fields and ids that differ from the file name', () => {
    const dir = corpus();
    const video = firstFile(dir, 'videos');
    fs.writeFileSync(video, fs.readFileSync(video, 'utf8').replace('---\n', '---\nduration: 12\n'));
    expect(problemsOf(dir).join('\n')).toMatch(/Unrecognized key.*duration/);
    fs.renameSync(video, path.join(dir, 'videos', 'Zz9_renamed.md'));
    expect(problemsOf(dir).join('\n')).toMatch(/videos\/Zz9_renamed\.md: (video_id: must equal the file name|\(front matter\))/);
  });

  it('refuses a digest that is not in the exact shape', () => {
    const dir = corpus();
    const digest = firstFile(dir, 'digests');
    const text = fs.readFileSync(digest, 'utf8');
    fs.writeFileSync(digest, text.slice(0, text.indexOf('## 5.')));
    expect(problemsOf(dir)).toEqual([`digests/${path.basename(digest)}: body: expected exactly five items, found 4`]);
    fs.writeFileSync(digest, text.replace('## 2.', '## 3.'));
    expect(problemsOf(dir)[0]).toMatch(/item 2: the heading must read "## 2\. <headline>"/);
    fs.writeFileSync(digest, text.replace(/Sources: \[/, 'Sources: see [').replace(/\n\nSources: /, '\n\nSource: '));
    expect(problemsOf(dir)[0]).toMatch(/item 1: /);
    fs.writeFileSync(digest, text.replace(/\(\/videos\/[^)]+\)/, '(/videos/doesNotExist1)'));
    expect(problemsOf(dir)[0]).toMatch(/item 1: unknown video "doesNotExist1"/);
  });

  it('finds the links of a text without parsing it only when it has neither "[" nor "<" (markdownLinks = linkUrls of the parse)', () => {
    const texts = [
      'plain text, no links at all',
      'an autolink <https://example.com/a> and <mailto:a@example.com>',
      'inline [a](/videos/abc) and reference [b][r]\n\n[r]: /essays/x',
      'shortcut [r]\n\n[r]: /knowledge/y',
      'a < b but no link',
      '`[code](/not/a/link)` in code',
      '<div>[html](/x)</div>',
    ];
    for (const t of texts) expect(markdownLinks(t), t).toEqual(linkUrls(parseMarkdown(t)));
    expect(markdownLinks('inline [a](/videos/abc) and <https://example.com/a>')).toEqual(['/videos/abc', 'https://example.com/a']);
  });

  it('refuses concepts without sources or with dangling references', () => {
    const dir = corpus();
    const concept = firstFile(dir, 'knowledge');
    const text = fs.readFileSync(concept, 'utf8');
    fs.writeFileSync(concept, text.replace(/related: \[.*\]/, 'related: [no-such-concept]'));
    expect(problemsOf(dir)).toContain(`knowledge/${path.basename(concept)}: related: unknown concept "no-such-concept"`);
    fs.writeFileSync(concept, text.replace(/sources:\n(  .*\n)+/, 'sources: []\n'));
    expect(problemsOf(dir).join('\n')).toMatch(/sources: a concept needs at least one source/);
    fs.writeFileSync(concept, text + '\nSee [nothing](/essays/no-such-essay).\n');
    expect(problemsOf(dir)).toContain(`knowledge/${path.basename(concept)}: body: link /essays/no-such-essay points at nothing`);
  });

  it('requires a modelfile for every mode and language a persona lists', () => {
    const dir = corpus();
    fs.rmSync(path.join(dir, 'personas/analyst/modelfiles/brief.sl.modelfile'));
    expect(problemsOf(dir)).toEqual(['personas/analyst/persona.md: modes: missing modelfiles/brief.sl.modelfile']);
  });

  it('says YAML errors plainly', () => {
    const dir = corpus();
    const channel = firstFile(dir, 'channels');
    fs.writeFileSync(channel, '---\nname: [unclosed\n---\n');
    expect(problemsOf(dir)[0]).toMatch(new RegExp(`^channels/${path.basename(channel)}: front matter is not valid YAML`));
  });
});
