// dist/site-manifest.json's formats: format 3 (today's: a base, and beside it a delta of what changed since),
// format 2 (no delta) and format 1 (which also recorded every file's hash) are read, format 1's `files`
// dropped; any other format, or a broken file, reads as no manifest (the incremental build then builds in
// full).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSiteManifest, SITE_MANIFEST, SITE_MANIFEST_DELTA, SITE_MANIFEST_FORMAT, writeSiteManifest, type SiteManifest } from '../../src/lib/static-build/manifest.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-manifest-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const manifest = (format: number): SiteManifest => ({
  format,
  renderer: 'r',
  base_url: 'http://kb.test',
  chrome: 'c',
  generated_at: '2026-11-27T08:00:00Z',
  content_hash: 'h',
  pages: { home: { fp: 'f', file: 'index.html' } },
  resources: ['api/index.json'],
  file_count: 2,
});

describe('the site manifest', () => {
  it('is written as format 3 and read back as it was written', () => {
    expect(SITE_MANIFEST_FORMAT).toBe(3);
    writeSiteManifest(dir, manifest(3));
    expect(readSiteManifest(dir)).toEqual(manifest(3));
    expect(JSON.parse(fs.readFileSync(path.join(dir, SITE_MANIFEST), 'utf8'))).not.toHaveProperty('files');
  });

  it('reads format 2, which has no delta', () => {
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify(manifest(2)));
    expect(readSiteManifest(dir)).toEqual(manifest(2));
  });

  it('reads format 1 without its record of file hashes', () => {
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify({ ...manifest(1), files: { 'index.html': 'x', 'api/index.json': 'y' } }));
    const m = readSiteManifest(dir);
    expect(m).toEqual(manifest(1));
    expect(m).not.toHaveProperty('files');
  });

  it('reads another format, a broken file or none as no manifest', () => {
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify(manifest(4)));
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), '{"format": 2, "pages"');
    expect(readSiteManifest(dir)).toBeNull();
  });
});

/** A manifest of `n` pages, documents and items, as a build of n videos would record them. */
function big(n: number, at = '2026-11-27T08:00:00Z'): SiteManifest {
  const ids = Array.from({ length: n }, (_, i) => `v${i}`);
  return {
    ...manifest(3),
    generated_at: at,
    pages: Object.fromEntries(ids.map((id) => [`video:${id}`, { fp: `fp-${id}`, file: `videos/${id}/index.html` }])),
    resources: ids.map((id) => `api/videos/${id}/index.json`),
    inputs: Object.fromEntries(ids.map((id) => [`video:${id}`, `key-${id}`])),
    key_record: { items: Object.fromEntries(ids.map((id) => [`video:${id}`, `sha-${id}`])), cites: { 'channel:c1': ids.slice(0, 5) } },
    pieces: { 'llms-full.txt': { stat: 's', groups: ids.slice(0, 2), starts: [0, 10], lengths: [10, 10] } },
  };
}

/** The manifest as read, with its documents in order (a delta keeps them as a set). */
const read = () => {
  const m = readSiteManifest(dir)!;
  return { ...m, resources: [...m.resources].sort() };
};
const sorted = (m: SiteManifest) => ({ ...m, resources: [...m.resources].sort() });

describe('the site manifest written after an incremental build', () => {
  it('writes only what changed since the base, and reads back base and delta as the manifest written', () => {
    const first = big(3000);
    writeSiteManifest(dir, first);
    const base = fs.readFileSync(path.join(dir, SITE_MANIFEST));
    // A build that added a video, changed one, removed one and moved the channel's list.
    const prev = readSiteManifest(dir)!;
    const second = structuredClone(prev);
    second.generated_at = '2026-11-27T09:00:00Z';
    second.file_count = 3001;
    second.pages['video:new'] = { fp: 'fp-new', file: 'videos/new/index.html' };
    second.pages['video:v1'] = { fp: 'fp-v1-edited', file: 'videos/v1/index.html' };
    delete second.pages['video:v2'];
    second.resources = [...second.resources.filter((r) => r !== 'api/videos/v2/index.json'), 'api/videos/new/index.json'];
    second.inputs!['video:new'] = 'key-new';
    delete second.inputs!['video:v2'];
    second.key_record!.items['video:v1'] = 'sha-v1-edited';
    second.key_record!.cites['channel:c1'] = ['new', 'v0'];
    second.pieces = { 'llms-full.txt': { stat: 's2', groups: ['new'], starts: [0], lengths: [5] } };
    writeSiteManifest(dir, second, prev);
    // The base is as it was; the delta holds the changes, a small part of the base's size.
    expect(fs.readFileSync(path.join(dir, SITE_MANIFEST)).equals(base)).toBe(true);
    const delta = fs.statSync(path.join(dir, SITE_MANIFEST_DELTA)).size;
    expect(delta).toBeLessThan(base.length / 20);
    expect(read()).toEqual(sorted(second));

    // A second delta, from the manifest read with the first: the changes of both, against the same base.
    const prev2 = readSiteManifest(dir)!;
    const third = structuredClone(prev2);
    delete third.pages['video:new']; // added by the first delta, gone again
    third.pages['video:v2'] = { fp: 'fp-v2', file: 'videos/v2/index.html' }; // removed by it, back as it was
    third.resources = [...third.resources.filter((r) => r !== 'api/videos/new/index.json'), 'api/videos/v2/index.json'];
    third.inputs!['video:v3'] = 'key-v3-edited';
    writeSiteManifest(dir, third, prev2);
    expect(fs.readFileSync(path.join(dir, SITE_MANIFEST)).equals(base)).toBe(true);
    const m = read();
    expect(m).toEqual(sorted(third));
    expect(m.resources.filter((r) => r === 'api/videos/v2/index.json')).toHaveLength(1);
  });

  it('writes a new base once the changes pass a tenth of the entries, and drops the delta', () => {
    writeSiteManifest(dir, big(3000));
    const base = fs.readFileSync(path.join(dir, SITE_MANIFEST));
    const prev = readSiteManifest(dir)!;
    const next = big(3000, '2026-11-27T10:00:00Z');
    for (const k of Object.keys(next.inputs!).slice(0, 1500)) next.inputs![k] += '-edited';
    writeSiteManifest(dir, next, prev);
    expect(fs.readFileSync(path.join(dir, SITE_MANIFEST)).equals(base)).toBe(false);
    expect(fs.existsSync(path.join(dir, SITE_MANIFEST_DELTA))).toBe(false);
    expect(read()).toEqual(sorted(next));
  });

  it('ignores a delta that names another base (one older than the base), and a full write removes the delta', () => {
    writeSiteManifest(dir, big(3000));
    const prev = readSiteManifest(dir)!;
    const next = structuredClone(prev);
    next.inputs!['video:v1'] = 'key-v1-edited';
    writeSiteManifest(dir, next, prev);
    expect(readSiteManifest(dir)!.inputs!['video:v1']).toBe('key-v1-edited');
    // A base written since (a full build's, or a compaction that stopped before removing the delta).
    const delta = fs.readFileSync(path.join(dir, SITE_MANIFEST_DELTA));
    writeSiteManifest(dir, big(3000));
    expect(fs.existsSync(path.join(dir, SITE_MANIFEST_DELTA))).toBe(false);
    fs.writeFileSync(path.join(dir, SITE_MANIFEST_DELTA), delta);
    expect(readSiteManifest(dir)!.inputs!['video:v1']).toBe('key-v1');
  });

  it('reads as no manifest (a full build) when the delta beside the base cannot be read or is not one', () => {
    writeSiteManifest(dir, big(3000));
    const prev = readSiteManifest(dir)!;
    writeSiteManifest(dir, { ...structuredClone(prev), generated_at: '2026-11-27T12:00:00Z' }, prev);
    const file = path.join(dir, SITE_MANIFEST_DELTA);
    const good = fs.readFileSync(file, 'utf8');
    expect(readSiteManifest(dir)!.generated_at).toBe('2026-11-27T12:00:00Z');
    fs.writeFileSync(file, good.slice(0, good.length / 2)); // cut short
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(good), resources: null })); // another shape
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(good), format: 4 })); // a later format
    expect(readSiteManifest(dir)).toBeNull();
    fs.rmSync(file);
    expect(readSiteManifest(dir)!.generated_at).toBe('2026-11-27T08:00:00Z'); // none: the base alone
  });

  it('writes a base when a field of the manifest it started from is gone', () => {
    writeSiteManifest(dir, big(3000));
    const prev = readSiteManifest(dir)!;
    const { file_count: _gone, ...next } = structuredClone(prev);
    writeSiteManifest(dir, next, prev);
    expect(fs.existsSync(path.join(dir, SITE_MANIFEST_DELTA))).toBe(false);
    expect(readSiteManifest(dir)).not.toHaveProperty('file_count');
  });

  it('writes a base when the manifest it started from was written in format 2', () => {
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify({ ...big(3000), format: 2 }));
    const prev = readSiteManifest(dir)!;
    expect(prev.format).toBe(2);
    const next = { ...structuredClone(prev), generated_at: '2026-11-27T11:00:00Z' };
    writeSiteManifest(dir, next, prev);
    expect(fs.existsSync(path.join(dir, SITE_MANIFEST_DELTA))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(dir, SITE_MANIFEST), 'utf8')).format).toBe(3);
    expect(read()).toEqual(sorted({ ...next, format: 3 }));
  });
});
