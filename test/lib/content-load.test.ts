import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { loadSnapshot, loadVideos, ContentError } from '../../src/lib/content/load.ts';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { DigestShapeError, markdownLinks, parseDigest } from '../../src/lib/content/markdown.ts';
import { fixtureContent } from '../helpers/content.ts';

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
    snap = loadSnapshot(fixtureContent());
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

  it('finds every link a page makes of a text: inline, reference and autolinks, with their URLs as written', () => {
    const cases: [string, string[]][] = [
      ['plain text, no links at all', []],
      ['an autolink <https://example.com/a> and <mailto:a@example.com> and <a@example.com>', ['https://example.com/a', 'mailto:a@example.com', 'mailto:a@example.com']],
      // A reference link is a link on the page as much as an inline one: its definition's URL is checked too.
      ['inline [a](/videos/abc) and reference [b][r]\n\n[r]: /essays/x', ['/videos/abc', '/essays/x']],
      ['shortcut [r] and collapsed [r][]\n\n[r]: /knowledge/y', ['/knowledge/y', '/knowledge/y']],
      ['an undefined [reference][nowhere] is text', []],
      ['a < b but no link', []],
      ['`[code](/not/a/link)` in code', []],
      ['<div>[html](/x)</div>', []],
      ['![an image](/img.png) is not a link', []],
      // As written: escapes and entities resolved, nothing percent-encoded, no scheme refused.
      ['[a](/knowledge/\\_x&amp;y) [b](</essays/a b>) [c](/knowledge/č) [d](javascript:alert(1))', ['/knowledge/_x&y', '/essays/a b', '/knowledge/č', 'javascript:alert(1)']],
      ['- a list with [a](/digests/2026-11-20)\n\n> a quote with [b](/personas/p)', ['/digests/2026-11-20', '/personas/p']],
    ];
    for (const [t, links] of cases) expect(markdownLinks(t), t).toEqual(links);
  });

  it('reads a digest as text (markup gone, escapes and entities resolved) and refuses anything beside its blocks', () => {
    const file = fs.readFileSync(path.join(fixtureContent(), 'digests', '2026-11-07.md'), 'utf8');
    const body = file.slice(file.indexOf('\n---\n', 4) + 5);
    const parsed = parseDigest('2026-11-07', body);
    expect(parsed.items.map((i) => i.number)).toEqual([1, 2, 3, 4, 5]);
    expect(parsed.items[0].sources).toEqual([{ title: 'Lokalni odprtokodni modeli za slovenščino: kaj deluje na lastni strojni opremi', video_id: '1dHxMwar5rP' }]);
    // Editors' comments are not blocks of the digest; markup reads as its text.
    const marked = parseDigest(
      '2026-11-07',
      `<!-- an editor's note -->\n${body}`
        .replace('## 1. Local open models', '## 1. *Local* open `models`')
        .replace('Sources: [Lokalni', 'Sources: [**Lokalni** \\* &amp;')
        .replace(/^## 3\./m, '<!-- another -->\n\n## 3.'),
    );
    expect(marked.items[0].headline).toBe('Local open models can handle Slovenian, at the right size');
    expect(marked.items[0].sources[0].title).toBe('Lokalni * & odprtokodni modeli za slovenščino: kaj deluje na lastni strojni opremi');
    const refusal = (text: string) => {
      try {
        parseDigest('2026-11-07', text);
      } catch (err) {
        expect(err).toBeInstanceOf(DigestShapeError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    // A link reference definition is a block of its own (markdown-it records it without a token): wherever
    // it stands, the digest is not in the shape.
    expect(refusal(`[r]: /videos/x\n\n${body}`)).toBe('must open with a level-1 title');
    expect(refusal(body.replace(/^## 3\./m, '[r]: /videos/x\n\n## 3.'))).toBe('item 3: expected a level-2 heading "## 3. …"');
    expect(refusal(`${body}\n[r]: /videos/x\n`)).toBe('item 6: expected a level-2 heading "## 6. …"');
    expect(refusal(body.replace(/^(Yesterday.*)$/m, '$1\nand a second line'))).toBe('the intro must be a single line');
    expect(refusal(body.replace('Sources: [An insurer', 'Sources: *see* [An insurer'))).toMatch(/^item 2: the Sources line must be/);
    expect(refusal(body.replace('(/videos/Q34mH9hGluU)', '(https://example.com/videos/Q34mH9hGluU)'))).toBe('item 2: source link https://example.com/videos/Q34mH9hGluU is not of the form /videos/<video_id>');
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
