// The agent and discovery documents as dynamic reads: the prose reference and its JSON summary, the
// briefing, the skill file, llms.txt, the agent, MCP and OAuth metadata cards, the login script, the public
// configuration, the health probe and the installable skills.
import { createRoute, z } from '@hono/zod-openapi';
import { toJson } from '../../src/lib/representation.ts';
import { briefing } from '../../src/lib/read/latest.ts';
import { llmsFullTxt } from '../../src/lib/read/page-markdown.ts';
import { getSkill, listSkills } from '../../src/lib/read/skills.ts';
import { agentLoginScript } from '../../src/lib/read/discovery/agent-login.ts';
import { apiReference, apiSummary } from '../../src/lib/read/discovery/api-reference.ts';
import { agentCard, mcpCard } from '../../src/lib/read/discovery/cards.ts';
import { health, publicConfig } from '../../src/lib/read/discovery/client-config.ts';
import { llmsTxt } from '../../src/lib/read/discovery/llms-txt.ts';
import { oauthAuthorizationServer, oauthProtectedResource } from '../../src/lib/read/discovery/oauth-metadata.ts';
import { skillDocument } from '../../src/lib/read/discovery/skill.ts';
import { queryBool } from '../validation/index.ts';
import { addRoute } from '../validation/route.ts';
import { requireRole } from '../auth/middleware.ts';
import { prefersJson } from '../static/index.ts';
import { ErrorResponses, NotFoundResponse } from '../openapi/schemas.ts';
import * as S from '../../src/lib/read/schemas.ts';
import { encode, ok, send, type ContentReads, type Read } from './reads.ts';

/** /api (Markdown, or JSON when asked), the briefing, the skill file, llms.txt and llms-full.txt. */
export function registerAgentDocuments({ get, read, json, state }: ContentReads) {
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
}

/** The agent and MCP cards, the OAuth metadata, the login script and the public configuration. */
export function registerDiscoveryDocuments({ get, read, json, state }: ContentReads) {
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
}

/**
 * /api/health (the detail view for admins) and the installable skills.
 * @param healthDetail what operators see at /api/health?detail=true: component states and counters
 */
export function registerHealthAndSkills({ app, get, read, json, found, state }: ContentReads, healthDetail?: () => Record<string, unknown>) {
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
      return c.json({ ...health(), ...(healthDetail?.() ?? {}) }, 200, { 'Cache-Control': 'no-store' });
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
}
