// What each content read answers, as zod schemas: /openapi.json documents every JSON read with these (named
// components a generated client turns into types), and the compile-time checks at the end hold each one
// equal to what its read function returns, so the document cannot drift from the responses. Field types
// reuse the content schema's (src/lib/content/schema.ts) where a field is a front-matter value.
import { z } from 'zod';
import { IsoDate, Lang, Slug, Tag, VideoId } from '../content/schema.ts';
import { MCP_SCOPES, OAUTH_SCOPES } from './discovery/shared.ts';
import { GRAPH_NODE_TYPES } from './graph.ts';
import type { getChannel, listChannels } from './channels.ts';
import type { getDigest, listDigests } from './digests.ts';
import type { apiSummary } from './discovery/api-reference.ts';
import type { agentCard, mcpCard } from './discovery/cards.ts';
import type { health, publicConfig } from './discovery/client-config.ts';
import type { oauthAuthorizationServer, oauthProtectedResource } from './discovery/oauth-metadata.ts';
import type { getEssay, listEssays } from './essays.ts';
import type { graphData } from './graph.ts';
import type { getConcept, listKnowledge } from './knowledge.ts';
import type { briefing } from './latest.ts';
import type { getModelfile, getPersona, listPersonas } from './personas.ts';
import type { listSkills } from './skills.ts';
import type { listTags } from './tags.ts';
import type { getVideo, listVideos } from './videos.ts';

const named = <T extends z.ZodType>(schema: T, id: string, description: string): T => schema.meta({ id, description });

const Count = z.number().int().nonnegative();
const Total = Count.describe('How many there are in all (not only on this page).');
const Url = z.string().describe('A path on this site: the page (or, with agent=true, the JSON document with ?agent=true).');
const ApiUrl = z.string().describe('The JSON document of the item on this site.');
const PageUrl = z.string().describe('The absolute address of the page a person reads: what to cite.');
/** The three addresses every item's summary carries, in this order. */
const ItemLinks = { url: Url, api_url: ApiUrl, page_url: PageUrl };
const AbsoluteUrl = z.string().describe('An absolute URL.');
/** A paged list: `total` in all, this page's `limit` and `offset`, and its items. */
const paged = <T extends z.ZodType>(item: T) => z.object({ total: Total, limit: Count, offset: Count, items: z.array(item) });

// ---- Videos and channels ----
export const VideoOut = named(
  z.object({
    video_id: VideoId,
    title: z.string(),
    date: IsoDate,
    channel: z.object({ channel_id: Slug, name: z.string(), url: ApiUrl }),
    language: Lang,
    tags: z.array(Tag),
    summary: z.string().describe('Empty while the video has no summary yet.'),
    thumbnail_url: AbsoluteUrl,
    highlight: z.boolean().describe('A front-page highlight.'),
    source_url: AbsoluteUrl.describe('The video on its platform.'),
    ...ItemLinks,
  }),
  'Video',
  'A video with its summary, tags and channel.',
);
export const VideoList = named(paged(VideoOut), 'VideoList', 'A page of videos, newest first.');
const ItemLink = z.object({ title: z.string(), url: Url, page_url: PageUrl });
export const VideoDetail = named(
  VideoOut.extend({
    transcript: z.string().nullable(),
    digests: z.array(ItemLink.extend({ date: IsoDate })).describe('The digests that cite this video.'),
    knowledge: z.array(ItemLink.extend({ slug: Slug })).describe('The knowledge concepts that cite this video.'),
  }),
  'VideoDetail',
  'One video, its transcript, and the digests and knowledge concepts that cite it.',
);

export const ChannelOut = named(
  z.object({
    channel_id: Slug,
    name: z.string(),
    description: z.string(),
    language: Lang,
    source_url: AbsoluteUrl,
    video_count: Count,
    last_video_date: IsoDate.nullable(),
    url: ApiUrl,
    page_url: PageUrl,
  }),
  'Channel',
  'A channel with its video count.',
);
export const ChannelList = named(z.object({ total: Total, items: z.array(ChannelOut) }), 'ChannelList', 'Every channel.');
export const ChannelDetail = named(
  ChannelOut.extend({ about: z.string().nullable(), videos: paged(VideoOut).describe('A page of its videos, newest first.') }),
  'ChannelDetail',
  'One channel and a page of its videos.',
);

// ---- Essays ----
export const EssaySummary = named(
  z.object({
    slug: Slug,
    title: z.string(),
    date: IsoDate,
    description: z.string(),
    lang: Lang.describe('The language of this version.'),
    tags: z.array(Tag),
    featured: z.boolean(),
    thumbnail: ApiUrl.describe('The title card (SVG).'),
    video: AbsoluteUrl.nullable().describe('The video the essay is about, on its platform.'),
    video_id: VideoId.nullable(),
    available_languages: z.array(Lang),
    ...ItemLinks,
  }),
  'EssaySummary',
  'An essay in one of its languages.',
);
export const EssayList = named(z.object({ total: Total, items: z.array(EssaySummary) }), 'EssayList', 'Every essay, newest first.');
export const EssayDetail = named(
  EssaySummary.extend({
    content: z.string().describe('The essay as Markdown.'),
    translations: z.record(z.string(), z.object({ title: z.string(), url: ApiUrl })).describe('Each language version by its code (en, sl).'),
  }),
  'EssayDetail',
  'One essay with its Markdown and its language versions.',
);

// ---- Digests ----
export const DigestSummary = named(
  z.object({
    date: IsoDate,
    title: z.string(),
    intro: z.string(),
    thumbnail: ApiUrl.describe('The title card (SVG).'),
    ...ItemLinks,
  }),
  'DigestSummary',
  'A daily digest.',
);
export const DigestList = named(z.object({ total: Total, items: z.array(DigestSummary) }), 'DigestList', 'Daily digests, newest first.');
export const DigestDetail = named(
  DigestSummary.extend({
    content: z.string().describe('The digest as Markdown.'),
    items: z.array(
      z.object({
        number: z.number().int().positive(),
        headline: z.string(),
        paragraph: z.string(),
        sources: z.array(z.object({ video_id: VideoId, title: z.string(), url: Url, page_url: PageUrl })),
      }),
    ),
  }),
  'DigestDetail',
  "One day's digest: its Markdown and its items with their sources.",
);

// ---- Knowledge ----
const conceptFields = {
  slug: Slug,
  title: z.string(),
  summary: z.string(),
  tags: z.array(Tag),
  draft: z.boolean(),
  source_count: Count,
  url: Url,
  api_url: ApiUrl,
  page_url: PageUrl,
};
export const KnowledgeConcept = named(
  z.object({ ...conceptFields, related: z.array(Slug).describe('Slugs of related concepts.') }),
  'KnowledgeConcept',
  'A knowledge concept.',
);
export const KnowledgeList = named(z.object({ total: Total, items: z.array(KnowledgeConcept) }), 'KnowledgeList', 'Knowledge concepts.');
const citedItem = <K extends 'video' | 'essay' | 'digest'>(type: K) =>
  z.object({ type: z.literal(type), id: z.string(), title: z.string(), date: IsoDate, url: Url, page_url: PageUrl });
export const KnowledgeSource = named(
  z.discriminatedUnion('type', [
    citedItem('video'),
    citedItem('essay'),
    citedItem('digest'),
    z.object({ type: z.literal('web_page'), id: AbsoluteUrl, title: z.string(), date: z.null(), url: AbsoluteUrl, page_url: AbsoluteUrl }),
  ]),
  'KnowledgeSource',
  'What a concept cites: a video, essay or digest of this site (id is its video_id, slug or date), or a web page (id is its URL).',
);
export const KnowledgeConceptDetail = named(
  z.object({
    ...conceptFields,
    body: z.string().describe('The concept as Markdown.'),
    sources: z.array(KnowledgeSource),
    related: z.array(z.object({ slug: Slug, title: z.string(), draft: z.boolean(), url: Url, page_url: PageUrl })),
  }),
  'KnowledgeConceptDetail',
  'One knowledge concept with its sources and related concepts.',
);

// ---- Personas ----
export const PersonaOut = named(
  z.object({
    persona_id: z.string(),
    name: z.string(),
    description: z.string(),
    languages: z.array(Lang),
    modes: z.array(Slug),
    ...ItemLinks,
  }),
  'Persona',
  'A persona to chat with, its modes and languages.',
);
export const PersonaList = named(z.object({ total: Total, items: z.array(PersonaOut) }), 'PersonaList', 'The personas.');
export const PersonaDetail = named(
  PersonaOut.extend({
    about: z.string().describe('The persona as Markdown.'),
    modelfiles: z.array(z.object({ mode: Slug, lang: Lang, url: ApiUrl })),
  }),
  'PersonaDetail',
  'One persona and links to its modelfiles.',
);
export const PersonaModelfile = named(
  z.object({ persona_id: z.string(), mode: z.string(), lang: z.string(), modelfile: z.string().describe('An Ollama Modelfile.'), url: ApiUrl }),
  'PersonaModelfile',
  'One modelfile of a persona for a mode and a language.',
);

// ---- Tags, graph, skills ----
export const TagList = named(
  z.object({
    total: Total,
    items: z.array(
      z.object({
        tag: Tag,
        count: Count.describe('videos + essays + knowledge'),
        videos: Count,
        essays: Count,
        knowledge: Count.describe('Published concepts only.'),
        videos_url: ApiUrl.describe('The videos with this tag.'),
      }),
    ),
  }),
  'TagList',
  'Every tag in use, most used first.',
);
export const GraphData = named(
  z.object({
    node_count: Count,
    edge_count: Count,
    nodes: z.array(
      z.object({
        id: z.string().describe('<type>:<id>, e.g. knowledge:shadow-ai'),
        type: z.enum(GRAPH_NODE_TYPES),
        label: z.string(),
        url: z.string().describe('The page of the node (a web page: its URL).'),
        x: z.number(),
        y: z.number(),
        size: z.number(),
      }),
    ),
    edges: z.array(z.object({ source: z.string(), target: z.string(), kind: z.enum(['cites', 'related', 'tagged']) })),
  }),
  'GraphData',
  "The knowledge graph: published concepts, what they cite, their tags, and a layout.",
);
export const SkillList = named(
  z.object({ total: Total, items: z.array(z.object({ name: Slug, description: z.string(), url: ApiUrl.describe('The skill as Markdown.') })) }),
  'SkillList',
  'The installable skills.',
);

// ---- Agent and discovery documents ----
const Feeds = z
  .object({
    all: AbsoluteUrl,
    videos: AbsoluteUrl,
    essays: AbsoluteUrl,
    digests: AbsoluteUrl,
    by_language: z.record(Lang, AbsoluteUrl),
  })
  .describe('Atom feeds of the newest items: everything, one kind, one language.');
const briefingItem = { title: z.string(), date: IsoDate, url: Url, page_url: PageUrl };
export const Briefing = named(
  z.object({
    site: z.string(),
    description: z.string(),
    supported_languages: z.array(Lang),
    generated_at: z.string().describe('When this document was made (ISO 8601).'),
    freshness: z.object({
      last_digest_date: IsoDate.nullable(),
      last_video_date: IsoDate.nullable(),
      summary_todo_count: Count.describe('Videos still without a summary.'),
      pipeline_status: z.object({
        last_run_at: z.string().nullable(),
        last_status: z.string().describe('ok, failed, never (no run yet) or unknown.'),
        hours_since_last_run: z.number().nullable(),
        invalid_file_count: Count.describe('Content files that failed validation: the rest is published.'),
        invalid_files: z
          .array(
            z.object({
              path: z.string().describe('The file, under the content folder.'),
              reason: z.string().describe('Why it failed, field by field.'),
              served: z
                .enum(['previous', 'current', 'none'])
                .describe('previous: its last valid version is served; current: this version, without its references to items that are not there; none: it is not published.'),
            }),
          )
          .describe('The first 20 of them.'),
      }),
    }),
    agent: z.object({
      friendly: z.boolean(),
      anonymous_read: z.boolean(),
      read_via_get_works_everywhere: z.boolean(),
      auth_available: z.boolean(),
      auth_preferred: z.string(),
      auth_type: z.string(),
      auth_metadata: AbsoluteUrl,
      auth_resource_metadata: AbsoluteUrl,
      auth_start: AbsoluteUrl,
      auth_token: AbsoluteUrl,
      auth_verify: AbsoluteUrl,
      mcp: AbsoluteUrl,
      skill: AbsoluteUrl,
      llms: AbsoluteUrl,
      recommended_behavior: z.array(z.string()),
    }),
    access: z.object({
      read: z.string(),
      write: z.string(),
      browser_login: z.string(),
      agent_login: z.object({
        preferred: z.string(),
        oauth2: z.object({ metadata: z.string(), register: z.string(), authorize: z.string(), token: z.string(), pkce: z.string(), resource: AbsoluteUrl }),
        device_flow: z.object({
          start: z.string(),
          token: z.string(),
          grant_type: z.string(),
          get_aliases: z.boolean(),
          oauth_tokens: z.object({ resource: AbsoluteUrl, scope: z.string(), refresh: z.string() }),
        }),
        api_key: z.object({ create: z.string(), prefix: z.string() }),
        script: z.string(),
      }),
      tell_the_user: z.string(),
      tell_the_agent: z.string(),
    }),
    stats: z.object({ total_videos: Count, knowledge_concepts: Count, essays: Count, digests: Count }),
    latest_digest: z.object({ date: IsoDate, title: z.string(), content: z.string().describe('Markdown.'), page_url: PageUrl }).nullable(),
    latest_videos: z.array(z.object({ video_id: VideoId, ...briefingItem, tags: z.array(Tag), summary: z.string(), thumbnail_url: AbsoluteUrl })),
    latest_essays: z.array(z.object({ slug: Slug, ...briefingItem, description: z.string(), video: AbsoluteUrl.optional() })),
    featured_essay: z
      .object({
        slug: Slug,
        ...briefingItem,
        description: z.string(),
        thumbnail: ApiUrl,
        video: AbsoluteUrl.nullable(),
        available_languages: z.array(Lang),
      })
      .nullable(),
    explore: z.object({ search: z.string(), knowledge: z.string(), graph: z.string(), all_videos: z.string(), skills: z.string() }),
    feeds: Feeds,
  }),
  'Briefing',
  'The one-call briefing: freshness, how to sign in, counts, the latest digest, videos and essays.',
);
export const ApiSummary = named(
  z.object({
    site: z.string(),
    description: z.string(),
    version: z.string(),
    openapi: z.string(),
    reference: z.string(),
    briefing: z.string(),
    search: z.string(),
    feeds: Feeds,
    counts: z.object({ videos: Count, channels: Count, essays: Count, digests: Count, knowledge_concepts: Count, personas: Count }),
  }),
  'ApiSummary',
  'A brief JSON summary of the API, with links.',
);
export const AgentCard = named(
  z.object({
    name: z.string(),
    description: z.string(),
    url: AbsoluteUrl,
    version: z.string(),
    documentation_url: AbsoluteUrl,
    default_input_modes: z.array(z.string()),
    default_output_modes: z.array(z.string()),
    capabilities: z.object({ streaming: z.boolean(), anonymous_read: z.boolean(), mcp: z.boolean() }),
    supported_languages: z.array(Lang),
    endpoints: z.object({ briefing: AbsoluteUrl, search: AbsoluteUrl, chat: AbsoluteUrl, openapi: AbsoluteUrl, mcp: AbsoluteUrl, llms: AbsoluteUrl, skill: AbsoluteUrl, feed: AbsoluteUrl }),
    authentication: z.object({
      schemes: z.array(z.string()),
      oauth2_metadata: AbsoluteUrl,
      protected_resource_metadata: AbsoluteUrl,
      device_authorization: AbsoluteUrl,
      login_script: AbsoluteUrl,
    }),
    skills: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), url: AbsoluteUrl })),
  }),
  'AgentCard',
  'The agent card.',
);
export const McpCard = named(
  z.object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    endpoint: AbsoluteUrl,
    transport: z.string(),
    authorization: z.object({ type: z.string(), protected_resource_metadata: AbsoluteUrl, authorization_server: AbsoluteUrl }),
    capabilities: z.object({ tools: z.boolean(), resources: z.boolean(), prompts: z.boolean() }),
    anonymous_read: z.boolean(),
  }),
  'McpCard',
  'The MCP server card.',
);
export const AuthorizationServerMetadata = named(
  z.object({
    issuer: AbsoluteUrl,
    authorization_endpoint: AbsoluteUrl,
    token_endpoint: AbsoluteUrl,
    registration_endpoint: AbsoluteUrl,
    revocation_endpoint: AbsoluteUrl,
    device_authorization_endpoint: AbsoluteUrl,
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.enum(OAUTH_SCOPES)),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: AbsoluteUrl,
  }),
  'AuthorizationServerMetadata',
  'OAuth 2.0 authorization server metadata (RFC 8414).',
);
export const ProtectedResourceMetadata = named(
  z.object({
    resource: AbsoluteUrl,
    resource_name: z.string(),
    authorization_servers: z.array(AbsoluteUrl),
    bearer_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.enum(MCP_SCOPES)),
    resource_documentation: AbsoluteUrl,
  }),
  'ProtectedResourceMetadata',
  'OAuth 2.0 protected resource metadata of /mcp (RFC 9728).',
);
export const PublicConfig = named(
  z.object({
    site: z.string(),
    base_url: AbsoluteUrl,
    api_version: z.string(),
    supported_languages: z.array(Lang),
    dev_mode: z.boolean(),
    key_prefix: z.string(),
    login_url: z.string(),
    device_authorization_url: z.string(),
    mcp_url: AbsoluteUrl,
  }),
  'PublicConfig',
  'Public client configuration.',
);
export const Health = named(
  z.object({
    status: z.literal('ok'),
    llm: z
      .object({
        configured: z.boolean(),
        model: z.string().nullable(),
        calls: Count,
        failures: z.record(z.string(), Count).describe('Failed calls by kind: timeout, http, unreachable, malformed.'),
        last_error: z.string().nullable(),
        last_error_at: z.string().nullable(),
      })
      .optional()
      .describe('detail=true only: the language model behind chat, counted since the server started.'),
    search: z
      .object({ items: Count, embedder: z.string(), built_at: z.string() })
      .optional()
      .describe('detail=true only: the search index.'),
  }),
  'Health',
  'Liveness: {"status":"ok"}; detail=true (admins) adds the components.',
);

// ---- Each schema is what its read returns: both ways assignable, so a field added to either fails tsc. ----
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Of<S extends z.ZodType> = z.output<S>;
type Read<F extends (...args: never[]) => unknown> = NonNullable<ReturnType<F>>;
const agree = <T extends true>(): T | undefined => undefined;
agree<Same<Of<typeof VideoList>, Read<typeof listVideos>>>();
agree<Same<Of<typeof VideoDetail>, Read<typeof getVideo>>>();
agree<Same<Of<typeof ChannelList>, Read<typeof listChannels>>>();
agree<Same<Of<typeof ChannelDetail>, Read<typeof getChannel>>>();
agree<Same<Of<typeof EssayList>, Read<typeof listEssays>>>();
agree<Same<Of<typeof EssayDetail>, Read<typeof getEssay>>>();
agree<Same<Of<typeof DigestList>, Read<typeof listDigests>>>();
agree<Same<Of<typeof DigestDetail>, Read<typeof getDigest>>>();
agree<Same<Of<typeof KnowledgeList>, Read<typeof listKnowledge>>>();
agree<Same<Of<typeof KnowledgeConceptDetail>, Read<typeof getConcept>>>();
agree<Same<Of<typeof PersonaList>, Read<typeof listPersonas>>>();
agree<Same<Of<typeof PersonaDetail>, Read<typeof getPersona>>>();
agree<Same<Of<typeof PersonaModelfile>, Read<typeof getModelfile>>>();
agree<Same<Of<typeof TagList>, Read<typeof listTags>>>();
agree<Same<Of<typeof GraphData>, Read<typeof graphData>>>();
agree<Same<Of<typeof SkillList>, Read<typeof listSkills>>>();
agree<Same<Of<typeof Briefing>, Read<typeof briefing>>>();
agree<Same<Of<typeof ApiSummary>, Read<typeof apiSummary>>>();
agree<Same<Of<typeof AgentCard>, Read<typeof agentCard>>>();
agree<Same<Of<typeof McpCard>, Read<typeof mcpCard>>>();
agree<Same<Of<typeof AuthorizationServerMetadata>, Read<typeof oauthAuthorizationServer>>>();
agree<Same<Of<typeof ProtectedResourceMetadata>, Read<typeof oauthProtectedResource>>>();
agree<Same<Of<typeof PublicConfig>, Read<typeof publicConfig>>>();
agree<Same<Omit<Of<typeof Health>, 'llm' | 'search'>, Read<typeof health>>>();
