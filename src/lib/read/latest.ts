// The one-call briefing (GET /api/latest, alias /api/brief): what is new, how fresh it is, and how an agent
// reads, signs in and writes. Every field of the spec's table.
import { essayIn, type Snapshot } from '../content/model.ts';
import { LANGUAGES } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { essayItem, essayThumbnailUrl, featuredEssay } from './essays.ts';
import { itemUrl, pageUrl } from './links.ts';
import { feedUrls } from './feeds.ts';

export const LATEST_VIDEO_COUNT = 10;
export const LATEST_ESSAY_COUNT = 5;
/** The most files that failed validation the briefing names (`invalid_file_count` counts them all). */
export const LATEST_INVALID_FILES = 20;

function hoursBetween(fromIso: string, toIso: string): number {
  return Math.round(((Date.parse(toIso) - Date.parse(fromIso)) / 3_600_000) * 100) / 100;
}

/** The briefing: every field of the spec's table, in its order. */
export function briefing(snap: Snapshot, site: SiteContext) {
  const digest = snap.digests.at(0);
  const abs = (p: string) => `${site.baseUrl}${p}`;
  return {
    site: site.siteName,
    description: site.description,
    supported_languages: [...LANGUAGES],
    generated_at: site.generatedAt,
    freshness: freshness(snap, site),
    agent: agentGuide(abs),
    access: access(site, abs),
    stats: {
      total_videos: snap.videos.length,
      knowledge_concepts: snap.concepts.filter((c) => !c.draft).length,
      essays: snap.essays.length,
      digests: snap.digests.length,
    },
    // The digest Markdown as the spec fixes it: Sources lines link `[title](/videos/<video_id>)`. Agents
    // get the JSON links from latest_videos[].url and from /api/digests/<date>?agent=true.
    latest_digest: digest ? { date: digest.date, title: digest.title, content: digest.content, page_url: pageUrl('digests', digest.date, site.baseUrl) } : null,
    latest_videos: snap.videos.slice(0, LATEST_VIDEO_COUNT).map((v) => ({
      video_id: v.video_id,
      title: v.title,
      date: v.date,
      tags: v.tags,
      summary: v.summary,
      thumbnail_url: v.thumbnail_url,
      url: itemUrl('videos', v.video_id, true),
      page_url: pageUrl('videos', v.video_id, site.baseUrl),
    })),
    latest_essays: snap.essays.slice(0, LATEST_ESSAY_COUNT).map((e) => {
      const item = essayItem(snap, e, true, undefined, site.baseUrl);
      return { slug: item.slug, title: item.title, date: item.date, description: item.description, url: item.url, page_url: item.page_url, ...(item.video ? { video: item.video } : {}) };
    }),
    featured_essay: featured(snap, site),
    explore: {
      search: '/api/search?q=<query>&agent=true',
      knowledge: '/api/knowledge',
      graph: '/api/graph',
      all_videos: '/api/videos',
      skills: '/api/skills',
    },
    // Atom feeds of the newest items, for a person's feed reader (or an agent that polls): absolute URLs.
    feeds: feedUrls(site.baseUrl),
  };
}

/** How fresh the content is: the newest digest and video, what is left to summarise, the pipeline's last run and the files that failed. */
function freshness(snap: Snapshot, site: SiteContext) {
  return {
    last_digest_date: snap.digests.at(0)?.date ?? null,
    last_video_date: snap.videos.length > 0 ? snap.videos[0].date : null,
    summary_todo_count: snap.videos.filter((v) => v.summary === '').length,
    pipeline_status: {
      last_run_at: site.pipeline.last_run_at,
      last_status: site.pipeline.last_status,
      hours_since_last_run: site.pipeline.last_run_at ? hoursBetween(site.pipeline.last_run_at, site.generatedAt) : null,
      // Content files that failed validation (the rest is published): why, and what is served for each.
      invalid_file_count: snap.invalid.length,
      invalid_files: snap.invalid.slice(0, LATEST_INVALID_FILES).map((f) => ({ path: f.path, reason: f.reasons.join('; '), served: f.served })),
    },
  };
}

/** What an agent may do here and how it should behave: the endpoints it starts from, absolute. */
function agentGuide(abs: (p: string) => string) {
  return {
    friendly: true,
    anonymous_read: true,
    read_via_get_works_everywhere: true,
    auth_available: true,
    auth_preferred: 'oauth2',
    auth_type: 'OAuth 2.1 authorization code with PKCE (S256); device flow and API keys as alternatives',
    auth_metadata: abs('/.well-known/oauth-authorization-server'),
    auth_resource_metadata: abs('/.well-known/oauth-protected-resource'),
    auth_start: abs('/api/oauth/device'),
    auth_token: abs('/api/oauth/token'),
    auth_verify: abs('/api/auth/me'),
    mcp: abs('/mcp'),
    skill: abs('/SKILL.md'),
    llms: abs('/llms.txt'),
    recommended_behavior: [
      'Read anonymously with GET; add agent=true to keep links in the agent form.',
      'Start from this briefing, then follow the url fields (JSON) or use explore.search.',
      'Cite items by their page_url (the page a person reads) when you report to a person; url and api_url are for you.',
      'Sign in only to write (comments, posts, flags); prefer OAuth 2.1, fall back to the device flow.',
      'Never ask a person for a password; show them the device code and link instead.',
    ],
  };
}

/** How to read, sign in and write: the sign-in flows an agent can use, and what it tells its user. */
function access(site: SiteContext, abs: (p: string) => string) {
  return {
    read: 'Anonymous: every GET under /api needs no credentials.',
    write: 'Signed in: send Authorization: Bearer <access token or API key>.',
    browser_login: '/api/auth/idp/login',
    agent_login: {
      preferred: 'oauth2',
      oauth2: {
        metadata: '/.well-known/oauth-authorization-server',
        register: '/api/oauth/v2/register',
        authorize: '/api/oauth/v2/authorize',
        token: '/api/oauth/v2/token',
        pkce: 'S256',
        resource: abs('/mcp'),
      },
      device_flow: {
        start: '/api/oauth/device',
        token: '/api/oauth/token',
        grant_type: 'device_code',
        get_aliases: true,
        // One login for every surface: these two fields when starting turn the answer into OAuth tokens.
        oauth_tokens: { resource: abs('/mcp'), scope: 'read write', refresh: '/api/oauth/v2/token' },
      },
      api_key: { create: '/api/account/api-keys', prefix: site.keyPrefix },
      script: '/agent-login.sh',
    },
    tell_the_user: `Reading ${site.siteName} needs no account. To let me comment or post for you, approve the sign-in code I show you.`,
    tell_the_agent:
      'Read with GET and agent=true; cite page_url to people. For writes, sign in once with the device flow (ask for OAuth tokens with scope "read write" to use the same login at /mcp and for chat) or OAuth 2.1, and send the bearer token; never store it in shared places.',
  };
}

/** The featured essay, with its languages and links, or null when there is none. */
function featured(snap: Snapshot, site: SiteContext) {
  const featured = featuredEssay(snap);
  return featured
    ? {
        slug: featured.slug,
        title: essayIn(featured).title,
        date: essayIn(featured).date,
        description: essayIn(featured).description,
        thumbnail: essayThumbnailUrl(featured.slug),
        video: essayItem(snap, featured).video,
        available_languages: featured.languages,
        url: itemUrl('essays', featured.slug, true),
        page_url: pageUrl('essays', featured.slug, site.baseUrl),
      }
    : null;
}
