// The content items as dynamic reads: videos and channels, essays, digests, knowledge concepts,
// personas and their modelfiles, tags and the graph, with their title cards.
import { createRoute, z } from '@hono/zod-openapi';
import { LANGUAGES } from '../../src/lib/content/schema.ts';
import { getVideo, listVideos } from '../../src/lib/read/videos.ts';
import { getChannel, listChannels } from '../../src/lib/read/channels.ts';
import { getEssay, listEssays } from '../../src/lib/read/essays.ts';
import { getDigest, listDigests } from '../../src/lib/read/digests.ts';
import { getConcept, listKnowledge } from '../../src/lib/read/knowledge.ts';
import { getModelfile, getPersona, listPersonas } from '../../src/lib/read/personas.ts';
import { listTags } from '../../src/lib/read/tags.ts';
import { graphData, graphHtml } from '../../src/lib/read/graph.ts';
import { digestThumbnail, essayThumbnail, videoThumbnail } from '../../src/lib/read/thumbnails.ts';
import { dateString, limitParam, offsetParam, queryBool } from '../validation/index.ts';
import { ErrorResponses, NotFoundResponse, ValidationErrorResponse } from '../openapi/schemas.ts';
import * as S from '../../src/lib/read/schemas.ts';
import { agentParam, ok, withErrors, type ContentReads } from './reads.ts';

/** Videos (filtered and paged), one video and its title card, channels and one channel. */
export function registerVideoRoutes({ get, read, json, found, state }: ContentReads) {
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
}

/** Essays, one essay in a language, and its title card. */
export function registerEssayRoutes({ get, read, json, found, state }: ContentReads) {
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
}

/** Daily digests, one digest and its title card. */
export function registerDigestRoutes({ get, read, json, found, state }: ContentReads) {
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
}

/** Knowledge concepts, personas and their modelfiles, tags, and the graph (page and data). */
export function registerKnowledgeRoutes({ get, read, json, found, state }: ContentReads) {
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
}
