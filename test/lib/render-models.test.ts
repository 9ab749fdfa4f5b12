// The incremental build hands the models of the pages it re-renders to the render process in a file
// (KB_PAGE_MODELS), so that process loads no snapshot. That is only sound if a model survives JSON, and if
// the render really takes its pages from the file: both are checked here. A page without params (home, the
// indexes) is rendered only when selected: the file then holds no model for the others.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { siteContext } from '../../src/lib/site.ts';
import { PAGE_ROUTES, pageKey, type RouteName } from '../../src/lib/pages/index.ts';
import { PAGE_MODELS_ENV, type PageModelsFile } from '../../src/lib/build-inputs.ts';
import { startPages } from '../../src/lib/static-build/render.ts';
import { fixtureContent } from '../helpers/content.ts';

const env = { ...process.env, CONTENT_DIR: fixtureContent(), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' };
const snap = loadSnapshot(env.CONTENT_DIR);
const site = siteContext(loadConfig(env), new Date('2026-11-20T08:00:00Z'));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-render-models-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

type AnySpec = { params: (s: typeof snap) => Record<string, string>[]; props: (s: typeof snap, site: typeof siteCtx, p: Record<string, string>) => unknown };
const siteCtx = site;
const specOf = (route: RouteName) => PAGE_ROUTES[route] as unknown as AnySpec;

describe('page models handed to the render process', () => {
  it('are the same after a trip through JSON, for every page of the sample', () => {
    let pages = 0;
    for (const route of Object.keys(PAGE_ROUTES) as RouteName[]) {
      for (const params of specOf(route).params(snap)) {
        const props = specOf(route).props(snap, site, params);
        // toEqual: a Map, a Set or a Date in a model would not come back equal; undefined fields may drop.
        expect(JSON.parse(JSON.stringify(props)), pageKey(route, params)).toEqual(props);
        pages++;
      }
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('are what the render process renders, without reading any content; unselected pages without params are not rendered', async () => {
    const video = snap.videos[0];
    const key = pageKey('video', { id: video.video_id });
    const model = PAGE_ROUTES.video.props(snap, site, { id: video.video_id });
    const handed: PageModelsFile = {
      site,
      pages: { [key]: { route: 'video', params: { id: video.video_id }, props: { ...model, v: { ...model.v, title: 'A title only the models file has' } } } },
    };
    const index = PAGE_ROUTES.knowledge.props(snap);
    handed.pages.knowledge = { route: 'knowledge', params: {}, props: { ...index, concepts: { ...index.concepts, items: [{ ...index.concepts.items[0], title: 'A concept only the models file has' }] } } };
    const file = path.join(root, 'models.json');
    fs.writeFileSync(file, JSON.stringify(handed));
    // No content folder at all: a render that loaded a snapshot would fail.
    const renderEnv = { ...env, CONTENT_DIR: path.join(root, 'no-content'), DATA_DIR: path.join(root, 'var'), [PAGE_MODELS_ENV]: file };
    const staging = await (await startPages(renderEnv, site.generatedAt, [key, 'knowledge'], { all: false, inChild: true })).result;
    try {
      const html = fs.readFileSync(path.join(staging, 'client', 'videos', video.video_id, 'index.html'), 'utf8');
      expect(html).toContain('A title only the models file has');
      expect(html).not.toContain(`<h1>${video.title}`);
      expect(fs.existsSync(path.join(staging, 'client', 'videos', snap.videos[1].video_id, 'index.html'))).toBe(false);
      expect(fs.readFileSync(path.join(staging, 'client', 'knowledge', 'index.html'), 'utf8')).toContain('A concept only the models file has');
      // Not selected: no file (and no model asked for, or the missing content would have failed the render).
      for (const rel of ['index.html', 'videos/index.html', 'channels/index.html', 'tags/index.html', 'essays/index.html', 'digests/index.html', 'personas/index.html', 'search/index.html', '404.html']) {
        expect(fs.existsSync(path.join(staging, 'client', rel)), rel).toBe(false);
      }
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }, 60_000);
});
