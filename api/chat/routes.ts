// Chat with the knowledge base. POST /api/chat/auth trades the caller's identity for a short-lived chat
// token bound to them, a persona, a language and a mode. POST /api/chat/completions (OpenAI-compatible)
// takes that token, or directly the caller's API key or OAuth token with persona_id (and lang, mode) in
// the body, so one login serves an agent everywhere; chat tokens stay for anonymous chat and browsers. It
// retrieves passages by hybrid search and answers in the persona's voice with [n] citations and the list
// of the sources it cites: through LLM_BASE_URL when configured (streamed as server-sent events on
// request), extractively otherwise. Failures of the model end the answer with a clear error, never a
// hanging connection.
import { randomUUID } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { addRoute, RequestValidationError } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import { principal, hasInvalidToken, requireScope, SESSION_COOKIE } from '../auth/middleware.ts';
import { RateLimiter, clientAddress, enforceRate } from '../rate-limit/index.ts';
import { createLlmClient, type ChatMessage, type LlmClient } from '../../src/lib/llm/client.ts';
import type { AppDeps } from '../deps.ts';
import { parseModelfile, type Modelfile } from '../../src/lib/personas/modelfile.ts';
import { chatTokenKey, issueChatToken, verifyChatToken, ChatTokenError, CHAT_TOKEN_PREFIX, type ChatClaims } from './token.ts';
import { retrieve } from './retrieve.ts';
import { extractiveReply, modelReply, noStore, type Question } from './reply.ts';
import { createLlmHealth } from './health.ts';

export const MAX_MESSAGES = 20;
export const MAX_MESSAGE_CHARS = 4000;
export const MAX_INPUT_CHARS = 12_000;
export const MAX_OUTPUT_TOKENS = 1024;

const Lang = z.enum(['en', 'sl']);
const AuthRequest = z
  .strictObject({ persona_id: z.string().min(1).max(100), lang: Lang.default('en'), mode: z.string().min(1).max(40).default('chat') })
  .openapi('AuthRequest');
const AuthResponse = z
  .object({ token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), expires_at: z.string(), persona_id: z.string(), lang: Lang, mode: z.string(), anonymous: z.boolean() })
  .openapi('ChatAuthResponse');
const ChatRequest = z
  .object({
    messages: z
      .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string().min(1).max(MAX_MESSAGE_CHARS) }))
      .min(1)
      .max(MAX_MESSAGES)
      .refine((m) => m[m.length - 1].role === 'user', { message: 'the last message must be the user’s question' }),
    persona_id: z
      .string()
      .max(100)
      .optional()
      .openapi({ description: 'Who answers (GET /api/personas). Required with an API key or OAuth token; with a chat token it must be the token\'s persona when given.' }),
    lang: Lang.optional().openapi({ description: 'en or sl. Default en with an API key or OAuth token; the token\'s language with a chat token.' }),
    mode: z.string().max(40).optional().openapi({ description: 'The persona\'s mode (chat or brief). Default chat with an API key or OAuth token.' }),
    stream: z.boolean().default(false),
    max_tokens: z.number().int().min(1).max(MAX_OUTPUT_TOKENS).optional(),
    model: z.string().max(200).optional().openapi({ description: 'Ignored: the persona decides (OpenAI compatibility).' }),
    temperature: z.number().min(0).max(2).optional().openapi({ description: 'Ignored: the persona decides.' }),
  })
  .openapi('ChatRequest');
const Source = z.object({
  n: z.number().int().openapi({ description: 'The number the answer cites as [n].' }),
  type: z.string(),
  id: z.string(),
  title: z.string(),
  url: z.string(),
  page_url: z.string().openapi({ description: 'The absolute address of the page: what to cite to a person. An essay quoted in its Slovenian version links that version (/essays/{slug}/sl).' }),
  lang: Lang.openapi({ description: 'The language of the quoted passage: the conversation\'s where the item has it.' }),
  cited: z.boolean().openapi({ description: 'Always true: only cited passages are listed, numbered 1, 2, 3… in the order the answer first cites them.' }),
});
const ChatResponse = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    mode: z.enum(['llm', 'extractive']),
    persona_id: z.string(),
    lang: Lang,
    coverage: z.enum(['none', 'partial', 'full']).openapi({
      description:
        'How much of the question the knowledge base covers. none: no passage answers enough of it, so nothing is cited and the answer says that the base does not cover it; partial: the best source answers part of it; full: most of it.',
    }),
    choices: z.array(z.object({ index: z.number().int(), message: z.object({ role: z.literal('assistant'), content: z.string() }), finish_reason: z.string() })),
    sources: z.array(Source),
  })
  .openapi('ChatCompletion');

/** What the chat routes share: the dependencies, the chat token key, the model (if any) and its health. */
interface Chat {
  deps: AppDeps;
  key: Buffer;
  llm: LlmClient | null;
  health: ReturnType<typeof createLlmHealth>;
}

/**
 * Registers POST /api/chat/auth and POST /api/chat/completions; returns the model's health for
 * /api/health?detail=true.
 */
export function registerChatRoutes(app: OpenAPIHono, deps: AppDeps) {
  const { config } = deps;
  const chat: Chat = {
    deps,
    key: chatTokenKey(config.dataDir),
    llm: config.llm ? createLlmClient(config.llm) : null,
    health: createLlmHealth(config.llm?.model ?? null),
  };
  registerChatAuth(app, chat);
  registerCompletions(app, chat);
  return { health: chat.health };
}

/** The persona's Modelfile for a mode and language; 404 naming what there is when it has none. */
function persona(deps: AppDeps, id: string, mode: string, lang: string): Modelfile {
  const p = deps.content().snapshot.personasById.get(id);
  if (!p) throw new ApiError(404, `No persona ${id}`, {}, `persona_id is one of ${[...deps.content().snapshot.personasById.keys()].join(', ')} (GET /api/personas).`);
  const text = p.modelfiles.get(`${mode}/${lang}`);
  if (text === undefined) {
    throw new ApiError(404, `Persona ${id} has no ${mode} mode in ${lang}; it has ${[...p.modelfiles.keys()].join(', ')}`, {}, `Send a mode and lang it has: ${[...p.modelfiles.keys()].map((k) => { const [m, l] = k.split('/'); return `"mode": "${m}", "lang": "${l}"`; }).join('; ')}.`);
  }
  return parseModelfile(text);
}

/** POST /api/chat/auth: a chat token bound to the caller (or an anonymous address), a persona, a language and a mode. */
function registerChatAuth(app: OpenAPIHono, { deps, key }: Chat) {
  const { config } = deps;
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/auth',
      tags: ['chat'],
      summary: 'Trade your identity (session, API key or OAuth token) for a short-lived chat token bound to you, a persona, a language and a mode',
      request: { body: { content: { 'application/json': { schema: AuthRequest } }, required: true } },
      responses: { 200: json(AuthResponse, 'A chat token'), 401: json(ErrorDetail, 'Not signed in'), 404: json(ErrorDetail, 'Unknown persona, mode or language'), 422: json(HTTPValidationError, 'Validation error') },
    }),
    (c, { body }) => {
      persona(deps, body.persona_id, body.mode, body.lang);
      const p = principal(c);
      const ttl = config.chat.tokenTtlSeconds;
      // Whole seconds, rounded up: the token lasts at least the `expires_in` it is sold with (rounded down,
      // a 1-second token issued late in a second had expired before its first use).
      const exp = Math.ceil(Date.now() / 1000) + ttl;
      const token = issueChatToken(key, { sub: p?.user.id ?? null, persona: body.persona_id, lang: body.lang, mode: body.mode, exp, ...(p ? {} : { anon: clientAddress(c) }) });
      return c.json(
        { token, token_type: 'Bearer' as const, expires_in: ttl, expires_at: new Date(exp * 1000).toISOString(), persona_id: body.persona_id, lang: body.lang, mode: body.mode, anonymous: !p },
        200,
        noStore,
      );
    },
    {
      // Who may ask, checked before the body (401 before 422): anyone signed in, everyone with anonymous chat.
      identity: (c) => {
        if (hasInvalidToken(c)) throw new ApiError(401, 'Invalid or expired token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
        if (!principal(c) && !config.chat.allowAnonymous) throw new ApiError(401, 'Sign in to chat (anonymous chat is off)', { 'WWW-Authenticate': 'Bearer' });
      },
    },
  );
}

const NO_CREDENTIAL_HINT =
  'Send Authorization: Bearer with either your API key or OAuth token (then persona_id, and lang and mode if not en and chat, in the body), ' +
  'or a chat token from POST /api/chat/auth (anonymous callers, browsers). Sign in with the device flow: POST /api/oauth/device.';

/** The bearer value when it is a chat token; null for other credentials. */
const chatTokenOf = (c: Context): string | null => {
  const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
  return m && m[1].startsWith(CHAT_TOKEN_PREFIX) ? m[1] : null;
};

/** The chat token's claims: well signed and not expired (401 otherwise). */
function tokenClaims(key: Buffer, token: string): ChatClaims {
  try {
    return verifyChatToken(key, token);
  } catch (err) {
    if (err instanceof ChatTokenError) throw new ApiError(401, err.message, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }, 'Ask POST /api/chat/auth for a new chat token, or send your API key or OAuth token with persona_id in the body.');
    throw err;
  }
}

/**
 * Who asks, before the body is read (401 before 422): a valid chat token, or a signed-in caller (API key,
 * OAuth token with the read scope: chat writes nothing, or a session).
 */
function checkCaller(key: Buffer, c: Context): void {
  const token = chatTokenOf(c);
  if (token) return void tokenClaims(key, token);
  if (hasInvalidToken(c)) throw new ApiError(401, 'Invalid or expired token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  if (!principal(c)) throw new ApiError(401, 'Send a chat token, an API key or an OAuth access token as Authorization: Bearer', { 'WWW-Authenticate': 'Bearer' }, NO_CREDENTIAL_HINT);
  requireScope(c, 'read');
}

/**
 * What the answer is bound to. A chat token's claims, checked against the request (same persona, language,
 * mode and user); or, for an API key or OAuth token, the persona, language and mode the body names.
 */
async function claimsOf({ deps, key }: Chat, c: Context, body: { persona_id?: string; lang?: 'en' | 'sl'; mode?: string }): Promise<ChatClaims> {
  const token = chatTokenOf(c);
  if (!token) {
    const p = principal(c)!;
    if (body.persona_id === undefined) {
      const ids = [...deps.content().snapshot.personasById.keys()];
      throw new RequestValidationError(
        [{ type: 'missing', loc: ['body', 'persona_id'], msg: 'Field required', input: null }],
        `With an API key or OAuth token, name the persona in the body: "persona_id": one of ${ids.join(', ')} (GET /api/personas), and "lang": "en" or "sl". Or use a chat token from POST /api/chat/auth, which carries them.`,
      );
    }
    return { sub: p.user.id, persona: body.persona_id, lang: body.lang ?? 'en', mode: body.mode ?? 'chat', exp: 0, jti: '' };
  }
  const claims = tokenClaims(key, token);
  const other = (what: string, value: string) => new ApiError(403, `This chat token is for the ${what} ${value}`, {}, `Leave ${what === 'persona' ? 'persona_id' : what} out, or ask POST /api/chat/auth for a token for the one you want.`);
  if (body.persona_id !== undefined && body.persona_id !== claims.persona) throw other('persona', claims.persona);
  if (body.lang !== undefined && body.lang !== claims.lang) throw other('lang', claims.lang);
  if (body.mode !== undefined && body.mode !== claims.mode) throw other('mode', claims.mode);
  // A browser signed in as someone else must not ride on another person's token.
  const cookie = getCookie(c, SESSION_COOKIE);
  const session = cookie ? await deps.identity.resolveSession(cookie) : null;
  if (session && session.user.id !== claims.sub) throw new ApiError(403, 'This chat token belongs to someone else');
  // A session of the token's user has just read that user; otherwise look the user up.
  if (claims.sub && !session && !(await deps.identity.getUser(claims.sub))) throw new ApiError(401, 'The chat token’s user no longer exists');
  return claims;
}

/** POST /api/chat/completions: rate, size and persona checks, retrieval, then the extract or the model's answer. */
function registerCompletions(app: OpenAPIHono, chat: Chat) {
  const { deps, llm, health } = chat;
  const { config } = deps;
  const userLimiter = new RateLimiter({ name: 'chat', limit: config.chat.rateLimitPerMinute, windowMs: 60_000, db: deps.db });
  const anonLimiter = new RateLimiter({ name: 'chat-anonymous', limit: config.chat.anonymousRateLimitPerMinute, windowMs: 60_000, db: deps.db });
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/completions',
      tags: ['chat'],
      summary: 'Ask the knowledge base (OpenAI-compatible; `stream: true` for server-sent events) with a chat token, or an API key or OAuth token and persona_id in the body',
      request: { body: { content: { 'application/json': { schema: ChatRequest } }, required: true } },
      responses: {
        200: { description: 'The answer with its sources (JSON, or text/event-stream when streaming)', content: { 'application/json': { schema: ChatResponse }, 'text/event-stream': { schema: z.string() } } },
        401: json(ErrorDetail, 'No credential, or an invalid one'),
        403: json(ErrorDetail, 'The chat token is for another persona, language, mode or user, or the OAuth token lacks the read scope'),
        413: json(ErrorDetail, 'The conversation is too long'),
        422: json(HTTPValidationError, 'Validation error'),
        429: json(ErrorDetail, 'Too many requests'),
        502: json(ErrorDetail, 'The language model failed'),
        504: json(ErrorDetail, 'The language model did not answer in time'),
      },
    }),
    async (c, { body }) => {
      const claims = await claimsOf(chat, c, body);
      await enforceRate(claims.sub ? userLimiter : anonLimiter, claims.sub ? `user:${claims.sub}` : `anon:${claims.anon ?? clientAddress(c)}`);
      const chars = body.messages.reduce((n, m) => n + m.content.length, 0);
      if (chars > MAX_INPUT_CHARS) throw new ApiError(413, `The conversation has ${chars} characters; ${MAX_INPUT_CHARS} at most`);
      const modelfile = persona(deps, claims.persona, claims.mode, claims.lang);
      const search = deps.search();
      const question = body.messages[body.messages.length - 1].content;
      const { passages, coverage } = await retrieve(search, deps.content().snapshot, question, claims.lang, config.chat.relevanceFloor);
      const q: Question = {
        c,
        base: { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), persona_id: claims.persona, lang: claims.lang },
        lang: claims.lang,
        question,
        messages: body.messages as ChatMessage[],
        stream: body.stream,
        maxTokens: Math.min(body.max_tokens ?? MAX_OUTPUT_TOKENS, Number(modelfile.parameters.num_predict ?? MAX_OUTPUT_TOKENS)),
        modelfile,
        passages,
        coverage,
        origin: deps.content().site.baseUrl,
      };
      if (!llm || coverage === 'none') return extractiveReply(q, llm);
      return modelReply(q, llm, health);
    },
    // The credential is checked before the body (401 before 422); what a chat token is bound to, against the body after.
    { identity: (c) => checkCaller(chat.key, c) },
  );
}
