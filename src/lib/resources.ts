// Every anonymous read the static build prerenders, with its default parameters: the list Astro renders
// into dist/ and the list the byte-equality test walks.
import type { Snapshot } from './content/model.ts';
import type { SiteContext } from './site.ts';
import { toJson, type Piece, type Representation } from './representation.ts';
import { CHANNEL_DEFAULTS, getChannel, listChannels } from './read/channels.ts';
import { getVideo, listVideos, VIDEO_LIST_DEFAULTS } from './read/videos.ts';
import { getEssay, listEssays } from './read/essays.ts';
import { getDigest, listDigests } from './read/digests.ts';
import { getConcept, listKnowledge } from './read/knowledge.ts';
import { getModelfile, getPersona, listPersonas } from './read/personas.ts';
import { listTags } from './read/tags.ts';
import { getSkill, listSkills } from './read/skills.ts';
import { graphData, graphHtml } from './read/graph.ts';
import { briefing } from './read/latest.ts';
import { llmsFullParts, llmsFullTxt, pageMarkdown, pageMarkdownPaths } from './read/page-markdown.ts';
import { digestThumbnail, essayThumbnail, videoThumbnail, videoThumbnailPath } from './read/thumbnails.ts';
import { robotsTxt, sitemapDocuments } from '../web/crawl.ts';
import { atomFeed, feedPath, FEED_NAMES } from './read/feeds.ts';
import { agentLoginScript } from './read/discovery/agent-login.ts';
import { apiReference, apiSummary } from './read/discovery/api-reference.ts';
import { agentCard, mcpCard } from './read/discovery/cards.ts';
import { health, publicConfig } from './read/discovery/client-config.ts';
import { llmsTxt } from './read/discovery/llms-txt.ts';
import { oauthAuthorizationServer, oauthProtectedResource } from './read/discovery/oauth-metadata.ts';
import { skillDocument } from './read/discovery/skill.ts';

export interface Resource {
  path: string;
  type: Representation;
  body: string;
  /**
   * The item whose documents this one belongs to (`video:<id>`, `concept:<slug>`, `essay:<slug>`, `digest:<date>`), for
   * the incremental build (src/lib/static-build/inputs.ts); such a body is computed only when read.
   */
  group?: string;
  /**
   * The body in pieces, for a document of hundreds of MB: a build encodes them without the whole string,
   * and copies an item's piece from the previous build's file when the item did not change.
   */
  pieces?: () => Iterable<Piece>;
}

const json = (path: string, value: unknown): Resource => ({ path, type: 'json', body: toJson(value) });

/** A document of one item's group: its body is computed when first read, so a build that keeps it never does. */
function lazy(group: string, path: string, type: Representation, make: () => string): Resource {
  let body: string | undefined;
  return {
    path,
    type,
    group,
    get body() {
      return (body ??= make());
    },
  };
}

/**
 * Every prerendered document. `keep`, when given, is asked first about each document of an item's group
 * (the incremental build: whether the group's inputs are unchanged, having noted the file as kept); such a
 * document is then neither yielded nor made. At 100k videos an hourly run keeps ~570k of ~580k documents,
 * and an object and a closure for each, made only to be skipped, cost the build ~3 s (most of it collecting
 * them).
 */
export function* prerenderedResources(snap: Snapshot, site: SiteContext, keep?: (group: string, path: string, type: Representation) => boolean): Generator<Resource> {
  const origin = site.baseUrl;
  const kept = (group: string, path: string, type: Representation) => keep !== undefined && keep(group, path, type);
  const noAgent = { agent: false, origin };
  // Discovery and agent documents
  yield { path: '/api', type: 'markdown', body: apiReference(snap, site) };
  yield json('/api', apiSummary(snap, site));
  const brief = toJson(briefing(snap, site));
  yield { path: '/api/latest', type: 'json', body: brief };
  yield { path: '/api/brief', type: 'json', body: brief };
  const skill = skillDocument(snap, site);
  yield { path: '/api/skill.md', type: 'markdown', body: skill };
  yield { path: '/SKILL.md', type: 'markdown', body: skill };
  yield { path: '/llms.txt', type: 'text', body: llmsTxt(snap, site) };
  yield {
    path: '/llms-full.txt',
    type: 'text',
    get body() {
      return llmsFullTxt(snap, site);
    },
    pieces: () => llmsFullParts(snap, site),
  };
  yield json('/.well-known/agent.json', agentCard(snap, site));
  yield json('/.well-known/mcp.json', mcpCard(site));
  yield json('/.well-known/oauth-authorization-server', oauthAuthorizationServer(site));
  yield json('/.well-known/oauth-protected-resource', oauthProtectedResource(site));
  yield json('/.well-known/oauth-protected-resource/mcp', oauthProtectedResource(site));
  yield { path: '/agent-login.sh', type: 'shell', body: agentLoginScript(site) };
  yield json('/api/config', publicConfig(site));
  yield json('/api/health', health());
  yield json('/api/skills', listSkills(snap));
  for (const s of snap.skills) yield { path: `/api/skills/${s.name}`, type: 'markdown', body: getSkill(snap, s.name)! };

  // Content
  yield json('/api/videos', listVideos(snap, VIDEO_LIST_DEFAULTS, origin));
  for (const v of snap.videos) {
    const group = `video:${v.video_id}`;
    const doc = `/api/videos/${v.video_id}`;
    if (!kept(group, doc, 'json')) yield lazy(group, doc, 'json', () => toJson(getVideo(snap, v.video_id, noAgent)));
    // With VIDEO_THUMBNAILS=proxy the server answers this path with the real image (api/web/thumbnails.ts).
    const card = videoThumbnailPath(v.video_id);
    if (site.videoThumbnails !== 'proxy' && !kept(group, card, 'svg')) yield lazy(group, card, 'svg', () => videoThumbnail(snap, v.video_id, site.siteName)!);
  }
  yield json('/api/channels', listChannels(snap, origin));
  for (const c of snap.channels) {
    const group = `channel:${c.channel_id}`;
    const doc = `/api/channels/${c.channel_id}`;
    if (!kept(group, doc, 'json')) yield lazy(group, doc, 'json', () => toJson(getChannel(snap, c.channel_id, CHANNEL_DEFAULTS, origin)));
  }
  if (!kept('list:essays', '/api/essays', 'json')) yield lazy('list:essays', '/api/essays', 'json', () => toJson(listEssays(snap, origin)));
  for (const e of snap.essays) {
    const group = `essay:${e.slug}`;
    const doc = `/api/essays/${e.slug}`;
    if (!kept(group, doc, 'json')) yield lazy(group, doc, 'json', () => toJson(getEssay(snap, e.slug, noAgent)));
    const card = `/api/essays/${e.slug}/thumbnail`;
    if (!kept(group, card, 'svg')) yield lazy(group, card, 'svg', () => essayThumbnail(snap, e.slug, site.siteName)!);
  }
  if (!kept('list:digests', '/api/digests', 'json')) yield lazy('list:digests', '/api/digests', 'json', () => toJson(listDigests(snap, {}, origin)));
  for (const d of snap.digests) {
    const group = `digest:${d.date}`;
    const doc = `/api/digests/${d.date}`;
    if (!kept(group, doc, 'json')) yield lazy(group, doc, 'json', () => toJson(getDigest(snap, d.date, noAgent)));
    const card = `/api/digests/${d.date}/thumbnail`;
    if (!kept(group, card, 'svg')) yield lazy(group, card, 'svg', () => digestThumbnail(snap, d.date, site.siteName)!);
  }
  if (!kept('list:knowledge', '/api/knowledge', 'json')) yield lazy('list:knowledge', '/api/knowledge', 'json', () => toJson(listKnowledge(snap, { draft: false }, origin)));
  for (const c of snap.concepts) {
    const group = `concept:${c.slug}`;
    const doc = `/api/knowledge/${c.slug}`;
    if (!kept(group, doc, 'json')) yield lazy(group, doc, 'json', () => toJson(getConcept(snap, c.slug, noAgent)));
  }
  yield json('/api/personas', listPersonas(snap, origin));
  for (const p of snap.personas) {
    yield json(`/api/personas/${p.persona_id}`, getPersona(snap, p.persona_id, noAgent));
    for (const key of p.modelfiles.keys()) {
      const [mode, lang] = key.split('/');
      yield json(`/api/personas/modelfiles/${p.persona_id}/${mode}/${lang}`, getModelfile(snap, p.persona_id, mode, lang));
    }
  }
  yield json('/api/tags', listTags(snap));
  // One group: kept by the incremental build while no concept and nothing a published concept cites changed.
  if (!kept('graph:data', '/api/graph/data', 'json')) yield lazy('graph:data', '/api/graph/data', 'json', () => toJson(graphData(snap)));
  if (!kept('graph:data', '/api/graph', 'html')) yield lazy('graph:data', '/api/graph', 'html', () => graphHtml(snap, site));

  // Every page as Markdown for agents: <page>.md, /index.md for the home page (llms.txt says so)
  for (const { path, group } of pageMarkdownPaths(snap)) {
    if (group) {
      if (!kept(group, path, 'markdown')) yield lazy(group, path, 'markdown', () => pageMarkdown(snap, site, path)!);
    } else yield { path, type: 'markdown', body: pageMarkdown(snap, site, path)! };
  }

  // Crawlers
  yield { path: '/robots.txt', type: 'text', body: robotsTxt(site.baseUrl) };
  for (const doc of sitemapDocuments(snap, site.baseUrl)) yield { path: doc.path, type: 'xml', body: doc.body };

  // Feed readers: Atom feeds of the newest items (everything, per kind, per language)
  for (const name of FEED_NAMES) yield { path: feedPath(name), type: 'atom', body: atomFeed(snap, site, name) };
}
