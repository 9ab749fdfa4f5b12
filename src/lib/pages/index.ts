// The prerendered pages by route: which pages a route has (their params) and each page's view model
// (src/lib/pages/models.ts). The .astro files in src/pages call staticPaths()/pageProps() and render only
// from the model. A page's fingerprint is the hash of its model: equal fingerprints mean equal bytes (for
// the same renderer and site chrome), which is what lets the incremental build skip a page.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Snapshot } from '../content/model.ts';
import type { Lang } from '../content/schema.ts';
import { buildInputs, givenPageModels } from '../build-inputs.ts';
import type { SiteContext } from '../site.ts';
import { listTags } from '../read/tags.ts';
import * as m from './models.ts';

type Params = Record<string, string>;

interface RouteSpec {
  /** The pages of the route; a route without params has one page, {}. */
  params: (snap: Snapshot) => Params[];
  props: (snap: Snapshot, site: SiteContext, params: Params) => unknown;
}

const single = () => [{}];

export const PAGE_ROUTES = {
  home: { params: single, props: (s, site) => m.homeModel(s, site) },
  videos: { params: single, props: (s) => m.videosIndexModel(s) },
  video: { params: (s) => s.videos.map((v) => ({ id: v.video_id })), props: (s, _site, p) => m.videoModel(s, p.id) },
  channels: { params: single, props: (s) => m.channelsIndexModel(s) },
  channel: { params: (s) => s.channels.map((c) => ({ id: c.channel_id })), props: (s, _site, p) => m.channelModel(s, p.id, 1) },
  'channel-page': {
    params: (s) =>
      s.channels.flatMap((c) => Array.from({ length: Math.max(0, m.channelPageCount(s, c.channel_id) - 1) }, (_, i) => ({ id: c.channel_id, n: String(i + 2) }))),
    props: (s, _site, p) => m.channelModel(s, p.id, Number(p.n)),
  },
  tags: { params: single, props: (s) => m.tagsIndexModel(s) },
  tag: { params: (s) => listTags(s).items.map((t) => ({ tag: t.tag })), props: (s, _site, p) => m.tagModel(s, p.tag) },
  essays: { params: single, props: (s) => m.essaysIndexModel(s) },
  essay: {
    params: (s) => s.essays.map((e) => ({ slug: e.slug })),
    props: (s, _site, p) => m.essayModel(s, p.slug, s.essaysBySlug.get(p.slug)!.primary),
  },
  'essay-translation': {
    params: (s) => s.essays.flatMap((e) => e.languages.filter((l) => l !== e.primary).map((l) => ({ slug: e.slug, lang: l }))),
    props: (s, _site, p) => m.essayModel(s, p.slug, p.lang as Lang),
  },
  digests: { params: single, props: (s) => m.digestsIndexModel(s) },
  digest: { params: (s) => s.digests.map((d) => ({ date: d.date })), props: (s, _site, p) => m.digestModel(s, p.date) },
  personas: { params: single, props: (s) => m.personasIndexModel(s) },
  persona: { params: (s) => s.personas.map((p) => ({ id: p.persona_id })), props: (s, _site, p) => m.personaModel(s, p.id) },
  knowledge: { params: single, props: (s) => m.knowledgeIndexModel(s) },
  concept: { params: (s) => s.concepts.filter((c) => !c.draft).map((c) => ({ slug: c.slug })), props: (s, _site, p) => m.conceptModel(s, p.slug) },
  search: { params: single, props: () => ({}) },
  'not-found': { params: single, props: () => ({}) },
} satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof PAGE_ROUTES;
export type PageModel<R extends RouteName> = ReturnType<(typeof PAGE_ROUTES)[R]['props']>;

/** A page's stable name: its route and params, e.g. `video:abc123`, `channel-page:ch1/3`, `home`. */
export function pageKey(route: RouteName, params: Params): string {
  const values = Object.keys(params).sort().map((k) => params[k]);
  return values.length ? `${route}:${values.join('/')}` : route;
}

/** The hash of what a page renders from (its model as JSON), as the incremental build compares it. */
export function modelFingerprint(json: string): string {
  return createHash('sha256').update(json).digest('base64url');
}

/** The file in dist/client a page is written to (Astro's directory format). */
export function pageFile(route: RouteName, props: unknown): string {
  if (route === 'not-found') return '404.html';
  if (route === 'search') return 'search/index.html';
  const urlPath = (props as { meta: { path: string } }).meta.path.replace(/^\/+/, '');
  return urlPath === '' ? 'index.html' : `${urlPath}/index.html`;
}

/** A page as the site manifest records it (the incremental build keeps a kept page's record object as it is). */
export interface PagePrint {
  /** modelFingerprint of the page's model. */
  fp: string;
  file: string;
}

/** How many pages the content makes (every route's params), without building a model. */
export function pageCount(snap: Snapshot): number {
  let n = 0;
  for (const spec of Object.values(PAGE_ROUTES) as RouteSpec[]) n += spec.params(snap).length;
  return n;
}

/**
 * Every page's fingerprint and file, by page key. `known` may answer for a page without building its model
 * (the incremental build's record of a page whose inputs did not change); `built` is told of each model
 * built, with its params and print.
 */
export function pageFingerprints(
  snap: Snapshot,
  site: SiteContext,
  known?: (key: string, route: RouteName) => PagePrint | undefined,
  /** Told of each model built, with its JSON (what the fingerprint hashes; the incremental build hands it on as it is). */
  built?: (key: string, route: RouteName, params: Params, json: string, print: PagePrint) => void,
): Map<string, PagePrint> {
  const out = new Map<string, PagePrint>();
  for (const [route, spec] of Object.entries(PAGE_ROUTES) as [RouteName, RouteSpec][]) {
    for (const params of spec.params(snap)) {
      const key = pageKey(route, params);
      const print = known?.(key, route);
      if (print) {
        out.set(key, print);
        continue;
      }
      const props = spec.props(snap, site, params);
      const json = JSON.stringify(props) ?? 'null';
      const made = { fp: modelFingerprint(json), file: pageFile(route, props) };
      out.set(key, made);
      built?.(key, route, params, json, made);
    }
  }
  return out;
}

/** The environment variable naming a JSON file of page keys: when set, a build renders only those pages (the incremental build's selection). */
export const PAGE_SELECTION_ENV = 'KB_PAGE_SELECTION';

let selection: Set<string> | null | undefined;

/** The page keys this build renders, or null for all (a full build). */
export function pageSelection(): Set<string> | null {
  if (selection === undefined) {
    const file = process.env[PAGE_SELECTION_ENV];
    selection = file ? new Set(JSON.parse(fs.readFileSync(file, 'utf8')) as string[]) : null;
  }
  return selection;
}

/** getStaticPaths of a route with params: its pages (those selected, in an incremental build) with their models. */
export function staticPaths<R extends RouteName>(route: R): { params: Params; props: PageModel<R> }[] {
  const only = pageSelection();
  const given = givenPageModels();
  if (given) {
    return Object.entries(given.pages)
      .filter(([key, p]) => p.route === route && (!only || only.has(key)))
      .map(([, p]) => ({ params: p.params, props: p.props as PageModel<R> }));
  }
  const { snapshot, site } = buildInputs();
  const spec = PAGE_ROUTES[route] as RouteSpec;
  return spec
    .params(snapshot)
    .filter((params) => !only || only.has(pageKey(route, params)))
    .map((params) => ({ params, props: spec.props(snapshot, site, params) as PageModel<R> }));
}

/** The model of a route without params (home, the section indexes). */
export function pageProps<R extends RouteName>(route: R): PageModel<R> {
  const given = givenPageModels()?.pages[pageKey(route, {})];
  if (given) return given.props as PageModel<R>;
  const { snapshot, site } = buildInputs();
  return (PAGE_ROUTES[route] as RouteSpec).props(snapshot, site, {}) as PageModel<R>;
}

// Rendering progress: the build (src/lib/static-build) registers a listener; the page layout calls
// notePageRendered() once per page. A global, because Astro renders from its own bundle of this module.
const RENDERED = Symbol.for('kb.pageRendered');
type Listener = () => void;

export function onPageRendered(listener: Listener | undefined): void {
  (globalThis as { [RENDERED]?: Listener })[RENDERED] = listener;
}

export function notePageRendered(): void {
  (globalThis as { [RENDERED]?: Listener })[RENDERED]?.();
}

/**
 * Whether this build renders the page of a route without params (home, the section indexes, search, 404).
 * Astro renders such a page in every build; under a selection (an incremental build's changed pages, or
 * one shard's share of a full build) a page left out of it returns notRendered() from its frontmatter
 * instead, and Astro writes no file for it. Without this every incremental build rendered every index
 * again (at 100k videos the knowledge index lists 33k concepts) and every shard of a full build rendered
 * them all.
 * @example if (!rendersPage('knowledge')) return notRendered();
 */
export function rendersPage(route: RouteName): boolean {
  const only = pageSelection();
  return !only || only.has(pageKey(route, {}));
}

/** What a page not rendered by this build returns: a response without a body, of which Astro writes nothing. */
export function notRendered(): Response {
  return new Response(null, { status: 204 });
}

