// Anonymous content reads as dynamic routes: the same read-model functions the static build prerenders,
// called with the request's validated parameters. A param-less request is normally answered from memory
// by api/static before it gets here; these routes answer the rest and give the same bytes for the same read.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
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
import { digestThumbnail, essayThumbnail } from '../../src/lib/read/thumbnails.ts';
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
import { notFound } from '../errors/index.ts';
import { etagFor, etagMatches, prefersJson, readHeaders } from '../static/index.ts';
import { ErrorResponses, JsonObject, NotFoundResponse, ValidationErrorResponse } from '../openapi/schemas.ts';

export interface ContentState {
  snapshot: Snapshot;
  site: SiteContext;
}

/** Sends a read with the headers and ETag its prerendered file would have; 304 when the client has it. */
export function sendRead(c: Context, rep: Representation, body: string, negotiated = false): Response {
  const etag = etagFor(body);
  const headers = readHeaders(c.req.path, CONTENT_TYPE[rep], etag, negotiated);
  const inm = c.req.header('if-none-match');
  if (inm && etagMatches(inm, etag)) return c.body(null, 304, headers);
  return c.body(body, 200, headers);
}

const agentParam = () => queryBool(false, 'Rewrite links to their agent form (/api/...?agent=true).');

const ok = (description: string, mediaType = 'application/json') => ({
  200: { description, content: { [mediaType]: { schema: mediaType === 'application/json' ? JsonObject : z.string() } } },
});
const withErrors = (description: string, mediaType?: string) => ({ ...ok(description, mediaType), ...ErrorResponses });

/** Registers every content read. `state` returns the current snapshot (it is swapped when dist/ is rebuilt). */
export function registerContentRoutes(app: OpenAPIHono, state: () => ContentState) {
  // The route handlers return plain Responses (exact bytes and cache headers), which the typed
  // OpenAPIHono handler signature cannot express; this is the one place that says so.
  const get = (route: ReturnType<typeof createRoute>, handler: (c: Context) => Response) =>
    app.openapi(route, handler as never);
  const json = (c: Context, value: unknown) => sendRead(c, 'json', toJson(value));
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
          content: { 'text/markdown': { schema: z.string() }, 'application/json': { schema: JsonObject } },
        },
      },
    }),
    (c) => {
      const { snapshot, site } = state();
      return prefersJson(c.req.header('accept'))
        ? sendRead(c, 'json', toJson(apiSummary(snapshot, site)), true)
        : sendRead(c, 'markdown', apiReference(snapshot, site), true);
    },
  );
  for (const path of ['/api/latest', '/api/brief']) {
    get(
      createRoute({ method: 'get', path, tags: ['agent'], summary: 'One-call briefing: latest digest, videos, essays, freshness, login hints', responses: ok('Briefing document') }),
      (c) => json(c, briefing(state().snapshot, state().site)),
    );
  }
  for (const path of ['/api/skill.md', '/SKILL.md']) {
    get(
      createRoute({ method: 'get', path, tags: ['agent'], summary: 'How an agent uses this service (skill file)', responses: ok('Skill document', 'text/markdown') }),
      (c) => sendRead(c, 'markdown', skillDocument(state().snapshot, state().site)),
    );
  }
  get(
    createRoute({ method: 'get', path: '/llms.txt', tags: ['discovery'], summary: 'llms.txt index of the site', responses: ok('llms.txt', 'text/plain') }),
    (c) => sendRead(c, 'text', llmsTxt(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/agent.json', tags: ['discovery'], summary: 'Agent card', responses: ok('Agent card') }),
    (c) => json(c, agentCard(state().snapshot, state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/mcp.json', tags: ['discovery'], summary: 'MCP server card', responses: ok('MCP server card') }),
    (c) => json(c, mcpCard(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/oauth-authorization-server', tags: ['discovery'], summary: 'OAuth 2.0 authorization server metadata (RFC 8414)', responses: ok('Metadata') }),
    (c) => json(c, oauthAuthorizationServer(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/.well-known/oauth-protected-resource', tags: ['discovery'], summary: 'OAuth 2.0 protected resource metadata for /mcp (RFC 9728)', responses: ok('Metadata') }),
    (c) => json(c, oauthProtectedResource(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/agent-login.sh', tags: ['discovery'], summary: 'Shell login script', responses: ok('POSIX sh script', 'text/x-shellscript') }),
    (c) => sendRead(c, 'shell', agentLoginScript(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/api/config', tags: ['agent'], summary: 'Public client configuration (includes dev_mode)', responses: ok('Configuration') }),
    (c) => json(c, publicConfig(state().site)),
  );
  get(
    createRoute({ method: 'get', path: '/api/health', tags: ['agent'], summary: 'Liveness probe', responses: ok('{"status":"ok"}') }),
    (c) => json(c, health()),
  );
  get(
    createRoute({ method: 'get', path: '/api/skills', tags: ['agent'], summary: 'Installable skills', responses: ok('Skills') }),
    (c) => json(c, listSkills(state().snapshot)),
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
    (c) => sendRead(c, 'markdown', found(getSkill(state().snapshot, c.req.param('name')!), 'Skill')),
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
        }),
      },
      responses: { ...ok('A page of videos'), ...ValidationErrorResponse },
    }),
    (c) => json(c, listVideos(state().snapshot, c.req.valid('query' as never))),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/videos/{video_id}',
      tags: ['content'],
      summary: 'One video',
      request: { params: z.object({ video_id: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The video'),
    }),
    (c) => {
      const { agent } = c.req.valid('query' as never) as { agent: boolean };
      return json(c, found(getVideo(state().snapshot, c.req.param('video_id')!, { agent }), 'Video'));
    },
  );
  get(
    createRoute({ method: 'get', path: '/api/channels', tags: ['content'], summary: 'Channels with their video counts', responses: ok('Channels') }),
    (c) => json(c, listChannels(state().snapshot)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/channels/{channel_id}',
      tags: ['content'],
      summary: 'One channel and its videos, paged',
      request: { params: z.object({ channel_id: z.string() }), query: z.object({ limit: limitParam(200, 50), offset: offsetParam() }) },
      responses: withErrors('The channel'),
    }),
    (c) => json(c, found(getChannel(state().snapshot, c.req.param('channel_id')!, c.req.valid('query' as never)), 'Channel')),
  );

  // ---- Essays ----
  get(
    createRoute({ method: 'get', path: '/api/essays', tags: ['content'], summary: 'Essays, newest first', responses: ok('Essays') }),
    (c) => json(c, listEssays(state().snapshot)),
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
      responses: withErrors('The essay'),
    }),
    (c) => {
      const q = c.req.valid('query' as never) as { agent: boolean; lang?: (typeof LANGUAGES)[number] };
      return json(c, found(getEssay(state().snapshot, c.req.param('slug')!, q), 'Essay'));
    },
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
    (c) => sendRead(c, 'svg', found(essayThumbnail(state().snapshot, c.req.param('slug')!, state().site.siteName), 'Essay')),
  );

  // ---- Digests ----
  get(
    createRoute({
      method: 'get',
      path: '/api/digests',
      tags: ['content'],
      summary: 'Daily digests, newest first',
      request: { query: z.object({ since: dateString('Only digests on or after this date.').optional() }) },
      responses: { ...ok('Digests'), ...ValidationErrorResponse },
    }),
    (c) => json(c, listDigests(state().snapshot, c.req.valid('query' as never))),
  );
  const digestParams = z.object({ date: dateString('The digest date.') });
  get(
    createRoute({
      method: 'get',
      path: '/api/digests/{date}',
      tags: ['content'],
      summary: "One day's digest",
      request: { params: digestParams, query: z.object({ agent: agentParam() }) },
      responses: withErrors('The digest'),
    }),
    (c) => {
      const { agent } = c.req.valid('query' as never) as { agent: boolean };
      return json(c, found(getDigest(state().snapshot, c.req.param('date')!, { agent }), 'Digest'));
    },
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
    (c) => sendRead(c, 'svg', found(digestThumbnail(state().snapshot, c.req.param('date')!, state().site.siteName), 'Digest')),
  );

  // ---- Knowledge, personas, tags, graph ----
  get(
    createRoute({
      method: 'get',
      path: '/api/knowledge',
      tags: ['content'],
      summary: 'Knowledge concepts',
      request: { query: z.object({ draft: queryBool(false, 'Include draft concepts.') }) },
      responses: { ...ok('Concepts'), ...ValidationErrorResponse },
    }),
    (c) => json(c, listKnowledge(state().snapshot, c.req.valid('query' as never))),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/knowledge/{slug}',
      tags: ['content'],
      summary: 'One knowledge concept with its sources and related concepts',
      request: { params: z.object({ slug: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The concept'),
    }),
    (c) => {
      const { agent } = c.req.valid('query' as never) as { agent: boolean };
      return json(c, found(getConcept(state().snapshot, c.req.param('slug')!, { agent }), 'Knowledge concept'));
    },
  );
  get(
    createRoute({ method: 'get', path: '/api/personas', tags: ['content'], summary: 'Personas', responses: ok('Personas') }),
    (c) => json(c, listPersonas(state().snapshot)),
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/personas/{persona_id}',
      tags: ['content'],
      summary: 'One persona and its modelfiles',
      request: { params: z.object({ persona_id: z.string() }), query: z.object({ agent: agentParam() }) },
      responses: withErrors('The persona'),
    }),
    (c) => {
      const { agent } = c.req.valid('query' as never) as { agent: boolean };
      return json(c, found(getPersona(state().snapshot, c.req.param('persona_id')!, { agent }), 'Persona'));
    },
  );
  get(
    createRoute({
      method: 'get',
      path: '/api/personas/modelfiles/{persona_id}/{mode}/{lang}',
      tags: ['content'],
      summary: 'One modelfile of a persona for a mode and language',
      request: { params: z.object({ persona_id: z.string(), mode: z.string(), lang: z.string() }) },
      responses: { ...ok('The modelfile'), ...NotFoundResponse },
    }),
    (c) => {
      const p = c.req.param() as { persona_id: string; mode: string; lang: string };
      return json(c, found(getModelfile(state().snapshot, p.persona_id, p.mode, p.lang), 'Modelfile'));
    },
  );
  get(
    createRoute({ method: 'get', path: '/api/tags', tags: ['content'], summary: 'Tags with counts', responses: ok('Tags') }),
    (c) => json(c, listTags(state().snapshot)),
  );
  get(
    createRoute({ method: 'get', path: '/api/graph', tags: ['content'], summary: 'Interactive knowledge graph', responses: ok('Self-contained HTML page', 'text/html') }),
    (c) => sendRead(c, 'html', graphHtml(state().snapshot, state().site.siteName)),
  );
  get(
    createRoute({ method: 'get', path: '/api/graph/data', tags: ['content'], summary: 'Graph nodes and edges', responses: ok('Nodes and edges') }),
    (c) => json(c, graphData(state().snapshot)),
  );
}
