// The answer of POST /api/chat/completions once its passages are retrieved: the extract (or the sentence
// that the base does not cover the question) without a model, or the model's answer with its citations
// renumbered, as one JSON completion or as server-sent events; only the sources the answer cites.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { LlmError, type ChatMessage, type CompletionOptions, type LlmClient } from '../../src/lib/llm/client.ts';
import type { Modelfile } from '../../src/lib/personas/modelfile.ts';
import type { Passage, Coverage } from './retrieve.ts';
import { buildPrompt, CitationNumbers, extractiveAnswer, NOT_COVERED } from './answer.ts';
import type { createLlmHealth } from './health.ts';

/** Chat answers are the caller's: never stored (api/chat/routes.ts uses it too). */
export const noStore = { 'Cache-Control': 'no-store' };

type Health = ReturnType<typeof createLlmHealth>;

/** A cited source as the completion lists it. */
export interface SourceOut {
  n: number;
  type: string;
  id: string;
  title: string;
  url: string;
  page_url: string;
  lang: 'en' | 'sl';
  cited: boolean;
}

/** What every completion and chunk carries besides the answer. */
interface Meta {
  id: string;
  created: number;
  persona_id: string;
  lang: 'en' | 'sl';
  model: string;
  mode: 'llm' | 'extractive';
  coverage: Coverage;
}

/** One question, ready to be answered: the retrieved passages and how the answer is to be sent. */
export interface Question {
  c: Context;
  base: Pick<Meta, 'id' | 'created' | 'persona_id' | 'lang'>;
  lang: 'en' | 'sl';
  question: string;
  messages: ChatMessage[];
  stream: boolean;
  /** The answer's limit: the request's max_tokens within the persona's num_predict. */
  maxTokens: number;
  modelfile: Modelfile;
  passages: Passage[];
  coverage: Coverage;
  /** The site's origin, for the sources' page_url. */
  origin: string;
}

/**
 * Only what the answer cites, numbered as the answer shows them: uncited passages were context, not sources.
 * @example citedSources(passages, 'https://kb.example.org', numbers.order) // [{ n: 1, …, page_url: 'https://kb.example.org/essays/…', cited: true }]
 */
export function citedSources(passages: Passage[], origin: string, order: ReadonlyMap<number, number>): SourceOut[] {
  return passages
    .filter((p) => order.has(p.n))
    .map((p) => ({ n: order.get(p.n)!, type: p.type, id: p.id, title: p.title, url: p.url, page_url: `${origin}${p.url}`, lang: p.lang, cited: true }))
    .sort((a, b) => a.n - b.n);
}

/**
 * Without a model, or when nothing in the base is relevant enough to cite: the extract, or the plain
 * sentence that the base does not cover the question (no model call is spent on that).
 */
export function extractiveReply(q: Question, llm: LlmClient | null): Response {
  const { passages, coverage } = q;
  const numbers = new CitationNumbers(passages);
  const text = coverage === 'none' ? NOT_COVERED[q.lang] : numbers.all(extractiveAnswer(q.question, passages, q.lang).text);
  const meta: Meta = { ...q.base, model: llm ? llm.model : 'extractive', mode: llm ? 'llm' : 'extractive', coverage: numbers.order.size ? coverage : 'none' };
  const cited = citedSources(passages, q.origin, numbers.order);
  if (q.stream) return sse(meta, (async function* () { yield text; })(), () => cited);
  return q.c.json({ ...meta, object: 'chat.completion' as const, sources: cited, choices: [{ index: 0, message: { role: 'assistant' as const, content: text }, finish_reason: 'stop' }] }, 200, noStore);
}

/** The model's answer in the persona's voice, its citations renumbered; a model failure is 502 or 504 (an error event when streaming). */
export async function modelReply(q: Question, llm: LlmClient, health: Health): Promise<Response> {
  const { modelfile, passages } = q;
  const options: CompletionOptions = {
    maxTokens: q.maxTokens,
    temperature: typeof modelfile.parameters.temperature === 'number' ? modelfile.parameters.temperature : undefined,
    topP: typeof modelfile.parameters.top_p === 'number' ? modelfile.parameters.top_p : undefined,
    stop: Array.isArray(modelfile.parameters.stop) ? modelfile.parameters.stop : undefined,
  };
  const prompt = buildPrompt(modelfile, passages, q.messages, q.lang);
  const out: Meta = { ...q.base, model: llm.model, mode: 'llm', coverage: q.coverage };
  const numbers = new CitationNumbers(passages);
  if (q.stream) {
    return sse(out, renumbered(llm.stream(prompt, { ...options, signal: q.c.req.raw.signal }), numbers), () => citedSources(passages, q.origin, numbers.order), health);
  }
  let text: string;
  try {
    text = numbers.all(await llm.complete(prompt, options));
    health.record(null);
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    health.record(err.failure, err.message);
    throw new ApiError(err.failure === 'timeout' ? 504 : 502, `The language model failed: ${err.message}`);
  }
  return q.c.json({ ...out, object: 'chat.completion' as const, sources: citedSources(passages, q.origin, numbers.order), choices: [{ index: 0, message: { role: 'assistant' as const, content: text }, finish_reason: 'stop' }] }, 200, noStore);
}

/** The model's pieces with their citations renumbered as they pass (see CitationNumbers). */
async function* renumbered(deltas: AsyncGenerator<string, void, void>, n: CitationNumbers): AsyncGenerator<string, void, void> {
  for await (const d of deltas) {
    const t = n.push(d);
    if (t) yield t;
  }
  const rest = n.end();
  if (rest) yield rest;
}

/**
 * The answer as server-sent events: OpenAI's chat.completion.chunk objects, the sources with the last one,
 * an `error` event when the model fails mid-answer, then [DONE].
 */
function sse(meta: Meta, deltas: AsyncGenerator<string, void, void>, sourcesNow: () => SourceOut[], h?: Health): Response {
  const enc = new TextEncoder();
  const event = (data: unknown, name?: string) => enc.encode(`${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, mode: meta.mode, persona_id: meta.persona_id, lang: meta.lang, coverage: meta.coverage,
    choices: [{ index: 0, delta, finish_reason: finish }], ...extra,
  });
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(event(chunk({ role: 'assistant' }, null)));
      try {
        for await (const d of deltas) controller.enqueue(event(chunk({ content: d }, null)));
        h?.record(null);
        controller.enqueue(event(chunk({}, 'stop', { sources: sourcesNow() })));
      } catch (err) {
        const e = err instanceof LlmError ? err : new LlmError((err as Error).message);
        h?.record(e.failure, e.message);
        controller.enqueue(event({ error: { message: `The language model failed: ${e.message}`, type: `llm_${e.failure}` } }, 'error'));
        controller.enqueue(event(chunk({}, 'error', { sources: sourcesNow() })));
      }
      controller.enqueue(event('[DONE]'));
      controller.close();
    },
    cancel() {
      void deltas.return(undefined);
    },
  });
  return new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } });
}
