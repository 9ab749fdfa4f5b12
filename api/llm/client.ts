// A minimal client of an OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp…):
// POST {LLM_BASE_URL}/v1/chat/completions with a deadline, and errors that say what went wrong.
// The endpoint is operator configuration, not user input, so it is reached without the SSRF guard.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class LlmError extends Error {}

export interface LlmOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface LlmClient {
  model: string;
  complete(messages: ChatMessage[], opts?: { temperature?: number; maxTokens?: number }): Promise<string>;
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
    async complete(messages, o = {}) {
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(opts.apiKey ? { Authorization: `Bearer ${opts.apiKey}` } : {}) },
          body: JSON.stringify({ model: opts.model, messages, temperature: o.temperature ?? 0.2, ...(o.maxTokens ? { max_tokens: o.maxTokens } : {}) }),
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
      } catch (err) {
        const e = err as Error;
        if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new LlmError(`the language model did not answer within ${opts.timeoutMs} ms`);
        throw new LlmError(`the language model endpoint is unreachable: ${(e.cause as Error | undefined)?.message ?? e.message}`);
      }
      const text = await res.text().catch(() => '');
      if (!res.ok) {
        // The body of an error may echo the request; only its first line goes into the message.
        throw new LlmError(`the language model endpoint answered HTTP ${res.status}: ${text.split('\n')[0].slice(0, 200)}`);
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
    },
  };
}
