// The examples /openapi.json shows for the content reads: each read applied to the content being served, to
// its first video, essay, digest, concept, persona and skill, so every example is a real answer and its ids
// work. Lists keep two items and long text is cut (marked with …), which keeps each example valid against
// its schema and the document small.
import type { ContentState } from './index.ts';
import type { OperationExample } from '../openapi/examples.ts';
import { agentLoginScript } from '../../src/lib/read/discovery/agent-login.ts';
import { apiReference, apiSummary } from '../../src/lib/read/discovery/api-reference.ts';
import { agentCard, mcpCard } from '../../src/lib/read/discovery/cards.ts';
import { health, publicConfig } from '../../src/lib/read/discovery/client-config.ts';
import { llmsTxt } from '../../src/lib/read/discovery/llms-txt.ts';
import { oauthAuthorizationServer, oauthProtectedResource } from '../../src/lib/read/discovery/oauth-metadata.ts';
import { skillDocument } from '../../src/lib/read/discovery/skill.ts';
import { briefing } from '../../src/lib/read/latest.ts';
import { getVideo, listVideos, VIDEO_LIST_DEFAULTS } from '../../src/lib/read/videos.ts';
import { getChannel, listChannels, CHANNEL_DEFAULTS } from '../../src/lib/read/channels.ts';
import { getEssay, listEssays } from '../../src/lib/read/essays.ts';
import { getDigest, listDigests } from '../../src/lib/read/digests.ts';
import { getConcept, listKnowledge } from '../../src/lib/read/knowledge.ts';
import { getModelfile, getPersona, listPersonas } from '../../src/lib/read/personas.ts';
import { listTags } from '../../src/lib/read/tags.ts';
import { getSkill, listSkills } from '../../src/lib/read/skills.ts';
import { graphData, graphHtml } from '../../src/lib/read/graph.ts';
import { llmsFullTxt } from '../../src/lib/read/page-markdown.ts';
import { digestThumbnail, essayThumbnail, videoThumbnail } from '../../src/lib/read/thumbnails.ts';

const TEXT = 600;
const ITEMS = 2;

/** Long strings cut, lists of items (arrays of objects) shortened; everything else as it is. */
function shorten(value: unknown): unknown {
  if (typeof value === 'string') return value.length > TEXT ? `${value.slice(0, TEXT)}…` : value;
  if (Array.isArray(value)) return (value.every((v) => v !== null && typeof v === 'object') ? value.slice(0, ITEMS) : value).map(shorten);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
}
const json = (value: unknown) => ({ 'application/json': shorten(value) });
const text = (mediaType: string, value: string | null) => (value === null ? {} : { [mediaType]: value.length > TEXT ? `${value.slice(0, TEXT)}…` : value });

/** Examples of every content read, keyed as the operation catalogue is ("GET /api/videos/{video_id}"). */
export function contentExamples({ snapshot: snap, site }: ContentState): Record<string, OperationExample> {
  const origin = site.baseUrl;
  const link = { agent: false, origin };
  const video = snap.videos[0]?.video_id;
  const channel = snap.channels[0]?.channel_id;
  const essay = snap.essays[0]?.slug;
  const digest = snap.digests[0]?.date;
  const concept = snap.concepts.find((c) => !c.draft)?.slug;
  const persona = snap.personas[0];
  const skill = snap.skills[0]?.name;
  const mode = persona?.modes[0];
  const lang = persona?.languages[0];
  const out: Record<string, OperationExample> = {
    'GET /api': { response: { ...text('text/markdown', apiReference(snap, site)), ...json(apiSummary(snap, site)) } },
    'GET /api/latest': { response: json(briefing(snap, site)) },
    'GET /api/brief': { response: json(briefing(snap, site)) },
    'GET /api/skill.md': { response: text('text/markdown', skillDocument(snap, site)) },
    'GET /SKILL.md': { response: text('text/markdown', skillDocument(snap, site)) },
    'GET /llms.txt': { response: text('text/plain', llmsTxt(snap, site)) },
    'GET /llms-full.txt': { response: text('text/plain', llmsFullTxt(snap, site)) },
    'GET /.well-known/agent.json': { response: json(agentCard(snap, site)) },
    'GET /.well-known/mcp.json': { response: json(mcpCard(site)) },
    'GET /.well-known/oauth-authorization-server': { response: json(oauthAuthorizationServer(site)) },
    'GET /.well-known/oauth-protected-resource': { response: json(oauthProtectedResource(site)) },
    'GET /.well-known/oauth-protected-resource/mcp': { response: json(oauthProtectedResource(site)) },
    'GET /agent-login.sh': { response: text('text/x-shellscript', agentLoginScript(site)) },
    'GET /api/config': { response: json(publicConfig(site)) },
    'GET /api/health': { response: json(health()) },
    'GET /api/skills': { response: json(listSkills(snap)) },
    'GET /api/videos': { response: json(listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: ITEMS }, origin)) },
    'GET /api/channels': { response: json(listChannels(snap, origin)) },
    'GET /api/essays': { response: json(listEssays(snap, origin)) },
    'GET /api/digests': { response: json(listDigests(snap, {}, origin)) },
    'GET /api/knowledge': { response: json(listKnowledge(snap, { draft: false }, origin)) },
    'GET /api/personas': { response: json(listPersonas(snap, origin)) },
    'GET /api/tags': { response: json(listTags(snap)) },
    'GET /api/graph': { response: text('text/html', graphHtml(snap, site)) },
    'GET /api/graph/data': { response: json(graphData(snap)) },
  };
  if (skill) out['GET /api/skills/{name}'] = { params: { name: skill }, response: text('text/markdown', getSkill(snap, skill)) };
  if (video) {
    out['GET /api/videos/{video_id}'] = { params: { video_id: video }, response: json(getVideo(snap, video, link)) };
    out['GET /api/videos/{video_id}/thumbnail'] = { params: { video_id: video }, response: text('image/svg+xml', videoThumbnail(snap, video, site.siteName)) };
  }
  if (channel) out['GET /api/channels/{channel_id}'] = { params: { channel_id: channel }, response: json(getChannel(snap, channel, { ...CHANNEL_DEFAULTS, limit: ITEMS }, origin)) };
  if (essay) {
    out['GET /api/essays/{slug}'] = { params: { slug: essay }, response: json(getEssay(snap, essay, link)) };
    out['GET /api/essays/{slug}/thumbnail'] = { params: { slug: essay }, response: text('image/svg+xml', essayThumbnail(snap, essay, site.siteName)) };
  }
  if (digest) {
    out['GET /api/digests/{date}'] = { params: { date: digest }, response: json(getDigest(snap, digest, link)) };
    out['GET /api/digests/{date}/thumbnail'] = { params: { date: digest }, response: text('image/svg+xml', digestThumbnail(snap, digest, site.siteName)) };
  }
  if (concept) out['GET /api/knowledge/{slug}'] = { params: { slug: concept }, response: json(getConcept(snap, concept, link)) };
  if (persona) out['GET /api/personas/{persona_id}'] = { params: { persona_id: persona.persona_id }, response: json(getPersona(snap, persona.persona_id, link)) };
  if (persona && mode && lang) {
    out['GET /api/personas/modelfiles/{persona_id}/{mode}/{lang}'] = { params: { persona_id: persona.persona_id, mode, lang }, response: json(getModelfile(snap, persona.persona_id, mode, lang)) };
  }
  // The related reads name the same items.
  if (video) out['GET /api/videos/{video_id}/related'] = { params: { video_id: video } };
  if (essay) out['GET /api/essays/{slug}/related'] = { params: { slug: essay } };
  if (digest) out['GET /api/digests/{date}/related'] = { params: { date: digest } };
  if (concept) out['GET /api/knowledge/{slug}/related'] = { params: { slug: concept } };
  if (persona) out['GET /api/personas/{persona_id}/related'] = { params: { persona_id: persona.persona_id } };
  return out;
}
