// Anonymous content reads as dynamic routes: the same read-model functions the static build prerenders,
// called with the request's validated parameters. A param-less request is normally answered from memory
// by api/static before it gets here; these routes answer the rest and give the same bytes for the same read.
import { createRoute, z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Snapshot } from '../../src/lib/content/model.ts';
import type { SiteContext } from '../../src/lib/site.ts';
import { CONTENT_TYPE, toJson, type Representation } from '../../src/lib/representation.ts';
import { LANGUAGES } from '../../src/lib/content/schema.ts';
import { getVideo, listVideos } from '../../src/lib/read/videos.ts';
import { getChannel, listChannels } from '../../src/lib/read/channels.ts';
import { getEssay, listEssays } from '../../src/lib/read/essays.ts';
import { getDigest, listDigests } from '../../src/lib/read/digests.ts';
import { getConcept, listKnowledge } from '../../src/lib/read/knowledge.ts';
import { getModelfile, getPersona, listPersonas } from '../../src/lib/read/personas.ts';
import { listTags } from '../../src/lib/read/tags.ts';
import { getSkill, listSkills } from '../../src/lib/read/skills.ts';
import { graphData, graphHtml } from '../../src/lib/read/graph.ts';
import { briefing } from '../../src/lib/read/latest.ts';
import { llmsFullTxt, pageMarkdown } from '../../src/lib/read/page-markdown.ts';
import { digestThumbnail, essayThumbnail, videoThumbnail } from '../../src/lib/read/thumbnails.ts';
import {
  agentCard,
  agentLoginScript,
  apiReference,
  apiSummary,
  health,
  llmsTxt,
  mcpCard,
  oauthAuthorizationServer,
  oauthProtectedResource,
  publicConfig,
  skillDocument,
} from '../../src/lib/read/discovery.ts';
import { dateString, limitParam, offsetParam, queryBool } from '../validation/index.ts';
import { addRoute, type Input } from '../validation/route.ts';
import { requireRole } from '../auth/middleware.ts';
import { notFound } from '../errors/index.ts';
import { etagFor, etagMatches, prefersJson, readHeaders } from '../static/index.ts';
import { negotiateEncoding, variantOf } from '../static/compression.ts';
import { ErrorResponses, NotFoundResponse, ValidationErrorResponse } from '../openapi/schemas.ts';
import * as S from '../../src/lib/read/schemas.ts';

export interface ContentState {
  snapshot: Snapshot;
  site: SiteContext;
}

/** A read's bytes before they are sent: its representation and, for /api, whether it was negotiated. */
export interface Read {
  rep: Representation;
  body: string;
  negotiated?: boolean;
}

interface CachedRead {
  bytes: Buffer<ArrayBuffer>;
  headers: Record<string, string>;
  etag: string;
}

/**
 * Reads are pure functions of the snapshot and the validated parameters, so their encoded bytes, ETag and
 * headers are kept per snapshot (bounded, oldest dropped first) and a repeated query costs only its
 * validation. A new snapshot starts a new cache.
 */
const MAX_CACHED_READS = 5000;
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
class ReadCache {
  private entries = new Map<string, CachedRead>();
  private bytes = 0;
  get(key: string): CachedRead | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: CachedRead): void {
    this.entries.set(key, value);
    this.bytes += value.bytes.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= MAX_CACHED_READS && this.bytes <= MAX_CACHED_BYTES) break;
      this.entries.delete(k);
      this.bytes -= v.bytes.length;
    }
  }
}
const caches = new WeakMap<ContentState, ReadCache>();

function encode(path: string, r: Read): CachedRead {
  const bytes = Buffer.from(r.body);
  const etag = etagFor(bytes);
  return { bytes, etag, headers: readHeaders(path, CONTENT_TYPE[r.rep], etag, r.negotiated ?? false, bytes) };
}

/**
 * Sends an encoded read; 304 when the client's If-None-Match has it. A Response built from bytes and a
 * plain header object takes @hono/node-server's fast path (see docs/decisions.md).
 */
function send(c: Context, r: CachedRead): Response {
  // Compressed as its prerendered file is (the same variant bytes and ETag), kept with the cached read.
  const enc = negotiateEncoding(c.req.header('accept-encoding'));
  const variant = enc && variantOf(r, { body: r.bytes, etag: r.etag, contentType: r.headers['Content-Type'] }, enc);
  const etag = variant ? variant.etag : r.etag;
  const headers = variant ? { ...r.headers, ETag: variant.etag, 'Content-Encoding': enc! } : r.headers;
  const inm = c.req.header('if-none-match');
  if (inm && etagMatches(inm, etag)) return new Response(null, { status: 304, headers });
  return new Response((variant ? variant.body : r.bytes) as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

const agentParam = () => queryBool(false, 'Rewrite links to their agent form (/api/...?agent=true).');

/** A 200 answer: JSON of this schema (src/lib/read/schemas.ts, held equal to what the read returns), or text of a media type. */
const ok = (description: string, body: z.ZodType | string) => ({
  200: { description, content: typeof body === 'string' ? { [body]: { schema: z.string() } } : { 'application/json': { schema: body } } },
});
const withErrors = (description: string, body: z.ZodType | string) => ({ ...ok(description, body), ...ErrorResponses });

/** Registers every content read. `state` returns the current snapshot (it is swapped when dist/ is rebuilt). */
/**
 * @param opts.healthDetail what operators see at /api/health?detail=true (admins only): component
 *   states and counters. Without `detail` the probe is the prerendered {"status":"ok"}.
 */
export function registerContentRoutes(app: OpenAPIHono, state: () => ContentState, opts: { healthDetail?: () => Record<string, unknown> } = {}) {
  const get = <R extends RouteConfig>(route: R, handler: (c: Context, input: Input<R['request']>) => Read) =>
    addRoute(app, route, (c, input) => {
      const current = state();
      let cache = caches.get(current);
      if (!cache) caches.set(current, (cache = new ReadCache()));
      // The key is everything a read depends on: path, validated query, and the negotiated form of /api.
      const key = `${c.req.path}\n${JSON.stringify(input.query)}\n${prefersJson(c.req.header('accept'))}`;
      let encoded = cache.get(key);
      if (!encoded) {
        encoded = encode(c.req.path, handler(c, input));
        cache.set(key, encoded);
      }
      return send(c, encoded);
    });
  const read = (rep: Representation, body: string): Read => ({ rep, body });
  const json = (value: unknown): Read => read('json', toJson(value));
  const found = <T>(value: T | null, what: string): T => {
    if (value === null) throw notFound(what);
    return value;
  };

  // ---- Agent and discovery documents ----
  get(
    createRoute({
      method: 'get',
      path: '/api',
      tags: ['agent'],
      summary: 'Prose reference for agents (Markdown), or a brief JSON summary for browsers and JSON clients',
      responses: {
        200: {
          description: 'Markdown by default; JSON when Accept names application/json or text/html',
          content: { 'text/markdown': { schema: z.string() }, 'application/json': { schema: S.ApiSummary } },
        },
      },
    }),
    (c): Read => {
      const { snapshot, site } = state();
      return prefersJson(c.req.header('accept'))
        ? { rep: 'json', body: toJson(apiSummary(snapshot, site)), negotiated: true }
        : { rep: 'markdown', body: apiReference(snapshot, site), negotiated: true };
    },
  );
  for (const path of ['/api/latest', '/api/brief']) {
    get(
      createRoute({ method: 'get', path, tags: ['agent'], summary: 'One-call briefing: latest digest, videos, essays, freshness, login hints', responses: ok('Briefing document', S.Briefing) }),
      (c) => json(briefing(state().snapshot, state().site)),
    );
  }
  for (const path of ['/api/skill.md', '/SKILL.md']) {
    get(
      createRoute({ method: 'get', path, tags: ['agent'], summary: 'How an agent uses this service (skill file)', responses: ok('Skill document', 'text/markdown') }),
      (c) => read('markdown', skillDocument(state().snapshot, state().site)),
    );
  }
  get(
    createRoute({ method: 'get', path: '/llms.txt', tags: ['discovery'], summary: 'llms.txt index of the site', responses: ok('llms.txt', 'text/plain') }),
    (c) => read('text', llmsTxt(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/llms-full.txt', tags: ['discovery'], summary: 'The whole corpus as one Markdown document, for agents that want it in one fetch', responses: ok('Markdown (text/plain, as llms.txt)', 'text/plain') }),
    (c) => read('text', llmsFullTxt(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/agent.json', tags: ['discovery'], summary: 'Agent card', responses: ok('Agent card', S.AgentCard) }),
    (c) => json(agentCard(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/mcp.json', tags: ['discovery'], summary: 'MCP server card', responses: ok('MCP server card', S.McpCard) }),
    (c) => json(mcpCard(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/oauth-authorization-server', tags: ['discovery'], summary: 'OAuth 2.0 authorization server metadata (RFC 8414)', responses: ok('Metadata', S.AuthorizationServerMetadata) }),
    (c) => json(oauthAuthorizationServer(state().site)),
  );
  // The spec's address, and the one RFC 9728 §3.1 derives from the resource {BASE_URL}/mcp.
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    get(
      createRoute({ method: 'get', path, tags: ['discovery'], summary: 'OAuth 2.0 protected resource metadata for /mcp (RFC 9728)', responses: ok('Metadata', S.ProtectedResourceMetadata) }),
      (c) => json(oauthProtectedResource(state().site)),
    );
  }
  get(
    createRoute({ method: 'get', path: '/agent-login.sh', tags: ['discovery'], summary: 'Shell login script', responses: ok('POSIX sh script', 'text/x-shellscript') }),
    (c) => read('shell', agentLoginScript(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/api/config', tags: ['agent'], summary: 'Public client configuration (includes dev_mode)', responses: ok('Configuration', S.PublicConfig) }),
    (c) => json(publicConfig(state().site)),
  );
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/health',
      tags: ['agent'],
      summary: 'Liveness probe; detail=true (admins) adds component states and failure counters for operators',
      request: { query: z.object({ detail: queryBool(false, 'Component states and counters (admins only).') }) },
      responses: { ...ok('{"status":"ok"}, or the detail view', S.Health), ...ErrorResponses },
    }),
    (c, { query }) => {
      if (!query.detail) return send(c, encode(c.req.path, json(health())));
      requireRole(c, 'admin');
      return c.json({ ...health(), ...(opts.healthDetail?.() ?? {}) }, 200, { 'Cache-Control': 'no-store' });
    },
  );
  get(
    createRoute({ method: 'get', path: '/api/skills', tags: ['agent'], summary: 'Installable skills', responses: ok('Skills', S.SkillList) }),
    (c) => json(listSkills(state().snapshot)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/skills/{name}',
      tags: ['agent'],
      summary: 'One skill as Markdown',
      request: { params: z.object({ name: z.string() }) },
      responses: { ...ok('Skill', 'text/markdown'), ...NotFoundResponse },
    }),
    (c, { params }) => read('markdown', found(getSkill(state().snapshot, params.name), 'Skill')),
  );

  // ---- Videos and channels ----
  get(
    createRoute({
      method: 'get',
      path: '/api/videos',
      tags: ['content'],
      summary: 'Videos, newest first, filtered and paged',
      request: {
        query: z.object({
          channel: z.string().optional().openapi({ description: 'Only this channel_id.' }),
          tag: z.string().optional().openapi({ description: 'Only videos with this tag.' }),
          limit: limitParam(200, 50),
          offset: offsetParam(),
          highlight: queryBool(false, 'Only front-page highlights.'),
          since: dateString('Only videos published on or after this date.').optional(),
          agent: agentParam(),
        }),
      },
      responses: { ...ok('A page of videos', S.VideoList), ...ValidationErrorResponse },
    }),
    (c, { query }) => json(listVideos(state().snapshot, query, state().site.baseUrl)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/videos/{video_id}',
      tags: ['content'],
      summary: 'One video',
      request: { params: z.object({ video_id: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The video', S.VideoDetail),
    }),
    (c, { params, query }) => json(found(getVideo(state().snapshot, params.video_id, { ...query, origin: state().site.baseUrl }), 'Video')),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/videos/{video_id}/thumbnail',
      tags: ['content'],
      summary: 'The video title card (SVG); with VIDEO_THUMBNAILS=proxy the real thumbnail, fetched and cached by the site',
      request: { params: z.object({ video_id: z.string() }) },
      responses: { ...ok('SVG image (or the proxied JPEG, PNG or WebP)', 'image/svg+xml'), ...NotFoundResponse },
    }),
    (c, { params }) => read('svg', found(videoThumbnail(state().snapshot, params.video_id, state().site.siteName), 'Video')),
  );
  get(
    createRoute({ method: 'get', path: '/api/channels', tags: ['content'], summary: 'Channels with their video counts', responses: ok('Channels', S.ChannelList) }),
    (c) => json(listChannels(state().snapshot, state().site.baseUrl)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/channels/{channel_id}',
      tags: ['content'],
      summary: 'One channel and its videos, paged',
      request: { params: z.object({ channel_id: z.string() }), query: z.object({ limit: limitParam(200, 50), offset: offsetParam(), agent: agentParam() }) },
      responses: withErrors('The channel', S.ChannelDetail),
    }),
    (c, { params, query }) => json(found(getChannel(state().snapshot, params.channel_id, query, state().site.baseUrl), 'Channel')),
  );

  // ---- Essays ----
  get(
    createRoute({ method: 'get', path: '/api/essays', tags: ['content'], summary: 'Essays, newest first', responses: ok('Essays', S.EssayList) }),
    (c) => json(listEssays(state().snapshot, state().site.baseUrl)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/essays/{slug}',
      tags: ['content'],
      summary: 'One essay, in its primary language or the one asked for',
      request: {
        params: z.object({ slug: z.string() }),
        query: z.object({
          agent: agentParam(),
          lang: z.enum(LANGUAGES).optional().openapi({ description: 'Language version; defaults to English where it exists.' }),
        }),
      },
      responses: withErrors('The essay', S.EssayDetail),
    }),
    (c, { params, query }) => json(found(getEssay(state().snapshot, params.slug, { ...query, origin: state().site.baseUrl }), 'Essay')),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/essays/{slug}/thumbnail',
      tags: ['content'],
      summary: 'The essay title card (SVG)',
      request: { params: z.object({ slug: z.string() }) },
      responses: { ...ok('SVG image', 'image/svg+xml'), ...NotFoundResponse },
    }),
    (c, { params }) => read('svg', found(essayThumbnail(state().snapshot, params.slug, state().site.siteName), 'Essay')),
  );

  // ---- Digests ----
  get(
    createRoute({
      method: 'get',
      path: '/api/digests',
      tags: ['content'],
      summary: 'Daily digests, newest first',
      request: { query: z.object({ since: dateString('Only digests on or after this date.').optional() }) },
      responses: { ...ok('Digests', S.DigestList), ...ValidationErrorResponse },
    }),
    (c, { query }) => json(listDigests(state().snapshot, query, state().site.baseUrl)),
  );
  const digestParams = z.object({ date: dateString('The digest date.') });
  get(
    createRoute({
      method: 'get',
      path: '/api/digests/{date}',
      tags: ['content'],
      summary: "One day's digest",
      request: { params: digestParams, query: z.object({ agent: agentParam() }) },
      responses: withErrors('The digest', S.DigestDetail),
    }),
    (c, { params, query }) => json(found(getDigest(state().snapshot, params.date, { ...query, origin: state().site.baseUrl }), 'Digest')),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/digests/{date}/thumbnail',
      tags: ['content'],
      summary: 'The digest title card (SVG)',
      request: { params: digestParams },
      responses: { ...ok('SVG image', 'image/svg+xml'), ...ErrorResponses },
    }),
    (c, { params }) => read('svg', found(digestThumbnail(state().snapshot, params.date, state().site.siteName), 'Digest')),
  );

  // ---- Knowledge, personas, tags, graph ----
  get(
    createRoute({
      method: 'get',
      path: '/api/knowledge',
      tags: ['content'],
      summary: 'Knowledge concepts',
      request: { query: z.object({ draft: queryBool(false, 'Include draft concepts.') }) },
      responses: { ...ok('Concepts', S.KnowledgeList), ...ValidationErrorResponse },
    }),
    (c, { query }) => json(listKnowledge(state().snapshot, query, state().site.baseUrl)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/knowledge/{slug}',
      tags: ['content'],
      summary: 'One knowledge concept with its sources and related concepts',
      request: { params: z.object({ slug: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The concept', S.KnowledgeConceptDetail),
    }),
    (c, { params, query }) => json(found(getConcept(state().snapshot, params.slug, { ...query, origin: state().site.baseUrl }), 'Knowledge concept')),
  );
  get(
    createRoute({ method: 'get', path: '/api/personas', tags: ['content'], summary: 'Personas', responses: ok('Personas', S.PersonaList) }),
    (c) => json(listPersonas(state().snapshot, state().site.baseUrl)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/personas/{persona_id}',
      tags: ['content'],
      summary: 'One persona and its modelfiles',
      request: { params: z.object({ persona_id: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The persona', S.PersonaDetail),
    }),
    (c, { params, query }) => json(found(getPersona(state().snapshot, params.persona_id, { ...query, origin: state().site.baseUrl }), 'Persona')),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/personas/modelfiles/{persona_id}/{mode}/{lang}',
      tags: ['content'],
      summary: 'One modelfile of a persona for a mode and language',
      request: { params: z.object({ persona_id: z.string(), mode: z.string(), lang: z.string() }) },
      responses: { ...ok('The modelfile', S.PersonaModelfile), ...NotFoundResponse },
    }),
    (c, { params: p }) => json(found(getModelfile(state().snapshot, p.persona_id, p.mode, p.lang), 'Modelfile')),
  );
  get(
    createRoute({ method: 'get', path: '/api/tags', tags: ['content'], summary: 'Tags with counts', responses: ok('Tags', S.TagList) }),
    (c) => json(listTags(state().snapshot)),
  );
  get(
    createRoute({ method: 'get', path: '/api/graph', tags: ['content'], summary: 'Interactive knowledge graph', responses: ok('Self-contained HTML page', 'text/html') }),
    (c) => read('html', graphHtml(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/api/graph/data', tags: ['content'], summary: 'Graph nodes and edges', responses: ok('Nodes and edges', S.GraphData) }),
    (c) => json(graphData(state().snapshot)),
  );

  // Every page's Markdown twin (<page>.md, /index.md for the home page), as src/lib/resources.ts prerenders
  // them: answered here for the same paths with a query string, and where no dist/ is loaded. Routes with
  // their own .md path (/SKILL.md, /api/skill.md) are registered above and answer first.
  app.get('*', (c, next) => {
    const path = c.req.path;
    if (!path.endsWith('.md') || path.startsWith('/api/')) return next();
    const current = state();
    let cache = caches.get(current);
    if (!cache) caches.set(current, (cache = new ReadCache()));
    const key = `${path}\n`;
    let encoded = cache.get(key);
    if (!encoded) {
      const body = pageMarkdown(current.snapshot, current.site, path);
      if (body === null) return next();
      encoded = encode(path, read('markdown', body));
      cache.set(key, encoded);
    }
    return send(c, encoded);
  });
}
