// A minimal client of an OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp…):
// POST {LLM_BASE_URL}/v1/chat/completions with a deadline, and errors that say what went wrong.
// The endpoint is operator configuration, not user input, so it is reached without the SSRF guard.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What went wrong, for operators' counters: no answer in time, an HTTP error, no connection, or garbage. */
export type LlmFailure = 'timeout' | 'http' | 'unreachable' | 'malformed';

export class LlmError extends Error {
  readonly failure: LlmFailure;
  constructor(message: string, failure: LlmFailure = 'malformed') {
    super(message);
    this.failure = failure;
  }
}

export interface LlmOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface CompletionOptions {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
}

export interface LlmClient {
  model: string;
  complete(messages: ChatMessage[], opts?: CompletionOptions): Promise<string>;
  /**
   * Streams the answer's text as it comes (server-sent events, `stream: true`). Ends with LlmError on a
   * timeout (no first byte within timeoutMs, or silence for idleMs between chunks), an HTTP error or a
   * malformed or cut stream; never waits forever.
   */
  stream(messages: ChatMessage[], opts?: CompletionOptions & { idleMs?: number; signal?: AbortSignal }): AsyncGenerator<string, void, void>;
}

/**
 * @example const llm = createLlmClient({ baseUrl: 'http://localhost:11434', model: 'llama3.1', timeoutMs: 60000 });
 *          const text = await llm.complete([{ role: 'user', content: 'Hello' }]);
 */
export function createLlmClient(opts: LlmOptions): LlmClient {
  // Accept a base URL given with or without the /v1 suffix.
  const endpoint = `${opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/chat/completions`;
  return {
    model: opts.model,
    complete: (messages, o = {}) => complete(opts, endpoint, messages, o),
    stream: (messages, o = {}) => stream(opts, endpoint, messages, o),
  };
}

/** One answer, whole: the message's content, or LlmError (timeout, unreachable, HTTP error, malformed). */
async function complete(opts: LlmOptions, endpoint: string, messages: ChatMessage[], o: CompletionOptions): Promise<string> {
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(opts.apiKey ? { Authorization: `Bearer ${opts.apiKey}` } : {}) },
      body: JSON.stringify(requestBody(opts.model, messages, o, false)),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new LlmError(`the language model did not answer within ${opts.timeoutMs} ms`, 'timeout');
    throw new LlmError(`the language model endpoint is unreachable: ${(e.cause as Error | undefined)?.message ?? e.message}`, 'unreachable');
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    // The body of an error may echo the request; only its first line goes into the message.
    throw new LlmError(`the language model endpoint answered HTTP ${res.status}: ${text.split('\n')[0].slice(0, 200)}`, 'http');
  }
  let body: { choices?: { message?: { content?: unknown } }[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new LlmError('the language model endpoint answered something other than JSON');
  }
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || !content.trim()) throw new LlmError('the language model answered without a message');
  return content;
}

type StreamOptions = CompletionOptions & { idleMs?: number; signal?: AbortSignal };

/** See LlmClient.stream: the answer's text as it comes, under a deadline for the first byte and one for each silence. */
async function* stream(opts: LlmOptions, endpoint: string, messages: ChatMessage[], o: StreamOptions): AsyncGenerator<string, void, void> {
  const idleMs = o.idleMs ?? Math.min(opts.timeoutMs, 30_000);
  const controller = new AbortController();
  const abort = () => controller.abort();
  o.signal?.addEventListener('abort', abort, { once: true });
  // One deadline for the first byte, then one for each silence between chunks.
  const timeout = deadline(controller);
  timeout.arm(opts.timeoutMs);
  try {
    const body = await openStream(opts, endpoint, messages, o, controller.signal, timeout.passed);
    const decoder = new TextDecoder();
    let buffer = '';
    let done = false;
    const reader = body.getReader();
    timeout.arm(idleMs);
    while (!done) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        if (timeout.passed()) throw new LlmError(`the language model stream went silent for ${idleMs} ms`, 'timeout');
        throw new LlmError('the language model stream broke off', 'malformed');
      }
      if (chunk.done) break;
      timeout.arm(idleMs);
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        const event = streamEvent(line);
        if (event === null) continue;
        if (event === 'end') {
          done = true;
          break;
        }
        if (event.delta) yield event.delta;
        if (event.finished) done = true;
      }
    }
    if (!done) throw new LlmError('the language model stream ended before it finished', 'malformed');
    await reader.cancel().catch(() => {});
  } finally {
    timeout.clear();
    o.signal?.removeEventListener('abort', abort);
  }
}

/** A deadline that aborts `controller` when it passes; arming it again replaces it. */
function deadline(controller: AbortController) {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = () => false;
  return {
    arm(ms: number): void {
      clearTimeout(timer);
      let fired = false;
      timer = setTimeout(() => {
        fired = true;
        controller.abort();
      }, ms);
      timedOut = () => fired;
    },
    /** Whether the deadline armed last has passed. */
    passed: (): boolean => timedOut(),
    clear: (): void => clearTimeout(timer),
  };
}

/** The streaming request: the response's body, or LlmError (timeout before the first byte, unreachable, HTTP error). */
async function openStream(
  opts: LlmOptions,
  endpoint: string,
  messages: ChatMessage[],
  o: StreamOptions,
  signal: AbortSignal,
  timedOut: () => boolean,
): Promise<ReadableStream<Uint8Array>> {
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...(opts.apiKey ? { Authorization: `Bearer ${opts.apiKey}` } : {}) },
      body: JSON.stringify(requestBody(opts.model, messages, o, true)),
      signal,
    });
  } catch (err) {
    if (timedOut()) throw new LlmError(`the language model did not answer within ${opts.timeoutMs} ms`, 'timeout');
    throw new LlmError(`the language model endpoint is unreachable: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`, 'unreachable');
  }
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw new LlmError(`the language model endpoint answered HTTP ${res.status}: ${text.split('\n')[0].slice(0, 200)}`, 'http');
  }
  return res.body;
}

/**
 * One line of the model's event stream: null when it is not a data line, 'end' for [DONE], else the
 * event's text (when it has some) and whether it finishes the answer. A data line that is not JSON is LlmError.
 */
function streamEvent(line: string): null | 'end' | { delta: string | undefined; finished: boolean } {
  if (!line.startsWith('data:')) return null;
  const data = line.slice(5).trim();
  if (data === '[DONE]') return 'end';
  let event: { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[] };
  try {
    event = JSON.parse(data);
  } catch {
    throw new LlmError('the language model sent a malformed stream event', 'malformed');
  }
  const delta = event.choices?.[0]?.delta?.content;
  return { delta: typeof delta === 'string' && delta ? delta : undefined, finished: !!event.choices?.[0]?.finish_reason };
}

function requestBody(model: string, messages: ChatMessage[], o: CompletionOptions, stream: boolean) {
  return {
    model,
    messages,
    temperature: o.temperature ?? 0.2,
    ...(o.maxTokens ? { max_tokens: o.maxTokens } : {}),
    ...(o.topP !== undefined ? { top_p: o.topP } : {}),
    ...(o.stop?.length ? { stop: o.stop } : {}),
    ...(stream ? { stream: true } : {}),
  };
}
