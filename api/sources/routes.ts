// Source endpoints. Anyone lists; signed-in people add a page or a text (rate-limited, fetched under the
// SSRF guard) and ask for a draft concept on a topic (written to content/knowledge with draft: true and
// filed as a concept_stub proposal for moderators).
import fs from 'node:fs';
import path from 'node:path';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute, RequestValidationError } from '../validation/route.ts';
import { limitParam, offsetParam } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import { requireWriter } from '../auth/middleware.ts';
import type { CommunityDeps } from '../deps.ts';
import { createLlmClient } from '../../src/lib/llm/client.ts';
import { createProposal, flagsOf } from '../../src/lib/data/proposals/store.ts';
import { publicProposals } from '../proposals/routes.ts';
import { PublicProposal } from '../proposals/schemas.ts';
import { SOURCE_TYPES, listSources, type SourceType } from './list.ts';
import { createSourceStore, DuplicateSource, sha256, type SourceRow } from '../../src/lib/data/sources/store.ts';
import { SourceRefused, checkUrl } from './guard.ts';
import { SourceFetchFailed, fetchPublicPage } from './fetch-page.ts';
import { tidy } from './extract.ts';
import { extractInThread, PageUnreadable } from './extract-thread.ts';
import { canonicalUrl, pageCanonicalUrl } from './canonical-url.ts';
import { indexedSourceSearch, type SearchSources } from './word-search.ts';
import { citable, draftConcept, slugify } from './knowledge.ts';
import { conceptFileProblems, conceptTaken, renderConceptFile, writeFileAtomic } from '../../src/lib/content/concept-file.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';

const E = {
  401: json(ErrorDetail, 'Not authenticated'),
  409: json(ErrorDetail, 'Duplicate'),
  422: json(HTTPValidationError, 'Validation error'),
  429: json(ErrorDetail, 'Too many requests'),
};
const noStore = { 'Cache-Control': 'no-store' };

export const MAX_PASTED_TEXT = 100_000;

const SourceItem = z
  .object({
    type: z.enum(SOURCE_TYPES),
    id: z.string(),
    title: z.string(),
    url: z.string().nullable(),
    date: z.string().describe('YYYY-MM-DD'),
    excerpt: z.string(),
  })
  .catchall(z.unknown())
  .openapi('SourceItem');
const SourceListResponse = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(SourceItem) })
  .openapi('SourceListResponse');

/** `type=video,essay`: a comma-separated subset of the source types; anything else is a 422. */
const TypeList = z
  .string()
  .max(200)
  .transform((v, ctx) => {
    const parts = v.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = parts.filter((p) => !(SOURCE_TYPES as readonly string[]).includes(p));
    if (unknown.length) {
      ctx.addIssue({ code: 'custom', message: `Unknown source type ${unknown.map((u) => `'${u}'`).join(', ')}; expected a comma-separated subset of ${SOURCE_TYPES.join(', ')}`, params: { type: 'enum' } });
      return z.NEVER;
    }
    return [...new Set(parts)] as SourceType[];
  })
  .optional()
  .openapi({ type: 'string', description: `Comma-separated subset of ${SOURCE_TYPES.join(', ')}; all when absent`, example: 'video,web_page' });

const AddSourceRequest = z
  .strictObject({
    url: z.string().trim().min(1).max(2048).optional().openapi({ description: 'An http(s) page to fetch' }),
    title: z.string().trim().min(1).max(300).optional(),
    text: z.string().trim().min(1).max(MAX_PASTED_TEXT).optional().openapi({ description: 'Pasted text (with title, instead of url)' }),
  })
  .superRefine((b, ctx) => {
    if (b.url !== undefined) {
      if (b.text !== undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'give either url or title and text, not both' });
      let u: URL | null = null;
      try {
        u = new URL(b.url);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['url'], message: 'Input should be a valid URL', params: { type: 'url_parsing' } });
      }
      if (u && u.protocol !== 'http:' && u.protocol !== 'https:') ctx.addIssue({ code: 'custom', path: ['url'], message: `URL scheme should be 'http' or 'https'`, params: { type: 'url_scheme' } });
    } else {
      if (b.title === undefined) ctx.addIssue({ code: 'custom', path: ['title'], message: 'Field required (with text, or give url)', params: { type: 'missing' } });
      if (b.text === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'Field required (with title, or give url)', params: { type: 'missing' } });
    }
  })
  .openapi('AddSourceRequest', { description: '{url} (optionally with a title to use instead of the page\'s) or {title, text}' });

const AddSourceResponse = SourceItem.extend({ text_length: z.number().int() }).openapi('AddSourceResponse');

const AddKnowledgeRequest = z.strictObject({ topic: z.string().trim().min(2).max(200) }).openapi('AddKnowledgeRequest');
const AddKnowledgeResponse = z
  .object({
    slug: z.string(),
    file: z.string().describe('content/-relative path of the draft'),
    ai_generated: z.literal(true),
    generator: z.string().describe('extractive, or llm:<model>'),
    draft: z.object({ title: z.string(), summary: z.string(), tags: z.array(z.string()), draft: z.literal(true), sources: z.array(z.record(z.string(), z.unknown())), related: z.array(z.string()), body: z.string(), markdown: z.string() }),
    proposal: PublicProposal,
    warnings: z.array(z.string()),
  })
  .openapi('AddKnowledgeResponse');

function sourceOut(r: SourceRow) {
  return {
    type: 'web_page' as const,
    id: r.id,
    title: r.title,
    url: r.url,
    date: r.created_at.slice(0, 10),
    excerpt: r.text.replace(/\s+/g, ' ').slice(0, 280),
    canonical_url: r.canonical_url,
    origin: r.type === 'text' ? 'pasted_text' : 'fetched',
    created_at: r.created_at,
    text_length: r.text.length,
  };
}


/** A source that is already there, as the API's 409. */
async function added<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof DuplicateSource) throw new ApiError(409, err.message);
    throw err;
  }
}

/** @param opts.search the search knowledge drafts are written from; by default the indexes (word-search.ts). */
export function registerSourceRoutes(app: OpenAPIHono, deps: CommunityDeps, opts: { search?: SearchSources } = {}): void {
  registerSourceListRoute(app, deps);
  registerAddSourceRoute(app, deps);
  registerKnowledgeDraftRoute(app, deps, opts.search ?? indexedSourceSearch({ search: deps.search, snapshot: () => deps.content().snapshot, db: deps.db }));
}

/** GET /api/sources: everything citable, newest first. */
function registerSourceListRoute(app: OpenAPIHono, deps: CommunityDeps): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/sources',
      tags: ['sources'],
      summary: 'Everything citable, newest first: videos, essays, digests, added web pages, published posts, top-level comments',
      description: 'Knowledge concepts, drafts, hidden or deleted comments and replies are never listed.',
      request: { query: z.object({ type: TypeList, limit: limitParam(100, 20), offset: offsetParam() }) },
      responses: { 200: json(SourceListResponse, 'Sources'), 422: E[422] },
    }),
    async (c, { query }) => c.json(await listSources(deps.db, deps.content().snapshot, { types: query.type ?? [], limit: query.limit, offset: query.offset }), 200, noStore),
  );

}

/** POST /api/sources: a web page fetched under the SSRF guard, or a pasted text. */
function registerAddSourceRoute(app: OpenAPIHono, deps: CommunityDeps): void {
  const store = createSourceStore(deps.db, deps.audit);
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/sources',
      tags: ['sources'],
      summary: 'Add a web page (fetched by the server) or a pasted text as a source',
      description:
        'Pages are fetched under an SSRF guard: http(s) only; every address the host resolves to must be public unicast (no loopback, private, link-local, unique-local, multicast, CGNAT, reserved…), and the connection goes to the address that was checked; at most 5 redirects, each checked again; size and time limits; HTML or plain text only. A page whose canonical URL (rel=canonical on the same site, else the normalised URL) is already a source, or a text already pasted, is 409. 400: the guard refused the URL; 502: the page could not be used; 504: it did not arrive in time.',
      request: { body: { content: { 'application/json': { schema: AddSourceRequest } }, required: true } },
      responses: {
        200: json(AddSourceResponse, 'Added'),
        400: json(ErrorDetail, 'The SSRF guard refused the URL'),
        ...E,
        502: json(ErrorDetail, 'The page could not be fetched or used'),
        504: json(ErrorDetail, 'The page did not arrive in time'),
      },
    }),
    async (c, { body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      if (body.url === undefined) {
        const row = await added(() => store.add({ type: 'text', url: null, canonicalUrl: null, title: body.title!, text: tidy(body.text!), addedBy: p.user.id }));
        return c.json(sourceOut(row), 200, noStore);
      }
      let page;
      try {
        checkUrl(new URL(body.url));
        // A page already added under this very address is refused before any network use.
        await added(() => store.assertNewUrl(canonicalUrl(body.url!)));
        page = await fetchPublicPage(body.url, {
          allowCidrs: deps.config.sources.allowPrivateCidrs,
          timeoutMs: deps.config.sources.fetchTimeoutMs,
          maxBytes: deps.config.sources.maxBytes,
        });
      } catch (err) {
        if (err instanceof SourceRefused) throw new ApiError(400, err.message);
        if (err instanceof SourceFetchFailed) throw new ApiError(err.timeout ? 504 : 502, err.message);
        throw err;
      }
      let extracted;
      try {
        extracted = await extractInThread({ body: page.body, url: page.url, contentType: page.contentType });
      } catch (err) {
        if (err instanceof PageUnreadable) throw new ApiError(502, err.message, {}, 'Add the page\'s text instead: POST /api/sources {"title": "…", "text": "…"}.');
        throw err;
      }
      if (!extracted.text) throw new ApiError(502, 'The page has no readable text');
      const row = await added(() => store.add({
        type: 'web_page',
        url: page.url,
        canonicalUrl: pageCanonicalUrl(page.url, extracted.canonical),
        title: body.title ?? extracted.title,
        text: extracted.text,
        addedBy: p.user.id,
      }));
      return c.json(sourceOut(row), 200, noStore);
    },
  );

}

/** POST /api/sources/knowledge: a concept drafted from the sources on a topic, and its proposal. */
function registerKnowledgeDraftRoute(app: OpenAPIHono, deps: CommunityDeps, search: SearchSources): void {
  const llm = deps.config.llm ? createLlmClient(deps.config.llm) : null;
  const knowledgeDir = path.join(deps.config.contentDir, 'knowledge');
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/sources/knowledge',
      tags: ['sources'],
      summary: 'Draft a knowledge concept on a topic from the sources found, and propose it (AI-generated content)',
      description:
        'Finds sources for the topic (the search index over content, a full-text index over the title and first 64 KiB of added sources), writes content/knowledge/<slug>.md with draft: true (by the configured LLM, else extractively: the best-matching sentences, each cited) and files a concept_stub proposal carrying the draft\'s body and file_sha256 (apply publishes only that text; rejecting the proposal removes the draft). 404: no sources mention the topic; 409: the concept or an open proposal for it exists.',
      request: { body: { content: { 'application/json': { schema: AddKnowledgeRequest } }, required: true } },
      responses: { 200: json(AddKnowledgeResponse, 'The draft and its proposal'), ...E, 404: json(ErrorDetail, 'No sources found') },
    }),
    async (c, { body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const slug = slugify(body.topic);
      if (!slug) throw new RequestValidationError([{ type: 'value_error', loc: ['body', 'topic'], msg: 'Value error, the topic needs letters or digits', input: body.topic }]);
      const snapshot = deps.content().snapshot;
      const file = path.join(knowledgeDir, `${slug}.md`);
      await assertConceptFree(deps, snapshot, knowledgeDir, slug);
      const hits = (await search(body.topic, 20)).filter(citable);
      if (hits.length === 0) throw new ApiError(404, `No sources mention “${body.topic}”; add some with POST /api/sources first`);
      const draft = await draftConcept(body.topic, slug, hits, { llm, snapshot });
      const markdown = renderConceptFile(draft.front, draft.body);
      const problems = conceptFileProblems(markdown, slug, snapshot, knowledgeDir);
      if (problems.length) throw new Error(`generated concept ${slug} would not load: ${problems.join('; ')}`);
      try {
        writeFileAtomic(file, markdown, { exclusive: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ApiError(409, `A concept ${slug} already exists`);
        throw err;
      }
      const proposal = await proposeDraft(deps, { userId: p.user.id, topic: body.topic, slug, file, draft, markdown });
      const out = publicProposals([proposal], await flagsOf(deps.db, [proposal.id]), deps.config.autoRejectFlagThreshold)[0];
      return c.json(
        {
          slug,
          file: `knowledge/${slug}.md`,
          ai_generated: true as const,
          generator: draft.generator,
          draft: { ...draft.front, draft: true as const, body: draft.body, markdown },
          proposal: out,
          warnings: draft.warnings,
        },
        200,
        noStore,
      );
    },
  );
}

/** 409 when the concept exists or a proposal for it is open. */
async function assertConceptFree(deps: CommunityDeps, snapshot: Snapshot, knowledgeDir: string, slug: string): Promise<void> {
  if (conceptTaken(snapshot, knowledgeDir, slug)) throw new ApiError(409, `A concept ${slug} already exists`);
  const open = (await deps.db
    .prepare("SELECT id FROM proposals WHERE kind = 'concept_stub' AND target_type = 'knowledge' AND target_id = ? AND status IN ('pending', 'accepted')")
    .pluck()
    .get(slug)) as string | undefined;
  if (open) throw new ApiError(409, `Proposal ${open} for the concept ${slug} is already open`);
}

/**
 * Files the concept_stub proposal for a draft written to `file`, with its audit event, in one transaction;
 * when that does not commit, the draft is taken back out of content/ so nothing is half-done.
 */
async function proposeDraft(deps: CommunityDeps, d: { userId: string; topic: string; slug: string; file: string; draft: Awaited<ReturnType<typeof draftConcept>>; markdown: string }) {
  const { userId, slug, file, draft, markdown } = d;
  try {
    return await deps.db.transaction(async () => {
      await deps.audit.append({
        kind: 'knowledge.draft',
        subjectType: 'knowledge',
        subjectId: slug,
        actor: { userId },
        data: { file: `knowledge/${slug}.md`, generator: draft.generator, sources: draft.cited.length },
      });
      return createProposal(deps.db, deps.audit, {
        kind: 'concept_stub',
        title: `New concept: ${draft.front.title}`,
        // The body is what moderators review on /moderation; the file's hash binds "apply" to exactly that text.
        payload: { slug, title: draft.front.title, summary: draft.front.summary, tags: draft.front.tags, sources: draft.front.sources, body: draft.body, file: `knowledge/${slug}.md`, file_sha256: sha256(markdown) },
        evidence: {
          topic: d.topic,
          generator: draft.generator,
          ai_generated: true,
          found_sources: draft.cited.map((h) => ({ type: h.type, id: h.id, title: h.title, score: Math.round(h.score * 100) / 100 })),
        },
        // More independent sources, more confidence that the concept is real: 0.45 for one, 0.8 for eight.
        confidence: Math.min(0.8, 0.4 + 0.05 * draft.cited.length),
        source: 'user',
        createdBy: userId,
      });
    });
  } catch (err) {
    // The proposal did not commit: take the draft back out of content/ so nothing is half-done.
    fs.rmSync(file, { force: true });
    throw err;
  }
}
