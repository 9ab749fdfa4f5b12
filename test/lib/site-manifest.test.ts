// dist/site-manifest.json's formats: format 2 (today's) and format 1 (which also recorded every file's hash)
// are read, format 1's `files` dropped; any other format, or a broken file, reads as no manifest (the
// incremental build then builds in full).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSiteManifest, SITE_MANIFEST, SITE_MANIFEST_FORMAT, writeSiteManifest, type SiteManifest } from '../../src/lib/static-build/manifest.ts';

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
  it('is written as format 2 and read back as it was written', () => {
    expect(SITE_MANIFEST_FORMAT).toBe(2);
    writeSiteManifest(dir, manifest(2));
    expect(readSiteManifest(dir)).toEqual(manifest(2));
    expect(JSON.parse(fs.readFileSync(path.join(dir, SITE_MANIFEST), 'utf8'))).not.toHaveProperty('files');
  });

  it('reads format 1 without its record of file hashes', () => {
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify({ ...manifest(1), files: { 'index.html': 'x', 'api/index.json': 'y' } }));
    const m = readSiteManifest(dir);
    expect(m).toEqual(manifest(1));
    expect(m).not.toHaveProperty('files');
  });

  it('reads another format, a broken file or none as no manifest', () => {
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), JSON.stringify(manifest(3)));
    expect(readSiteManifest(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, SITE_MANIFEST), '{"format": 2, "pages"');
    expect(readSiteManifest(dir)).toBeNull();
  });
});
