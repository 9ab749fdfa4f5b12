// The abstractive summariser: any OpenAI-compatible chat endpoint (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY),
// asked for a short summary in the video's language and tags chosen from the existing vocabulary only.
import { createLlmClient } from '../../src/lib/llm/client.ts';
import type { Config } from '../../src/lib/config.ts';
import type { Summariser } from './summarise.ts';

export function llmSummariser(llm: NonNullable<Config['llm']>): Summariser {
  const client = createLlmClient(llm);
  return {
    name: `llm:${llm.model}`,
    async summarise({ title, text, lang, vocabulary }) {
      const reply = await client.complete(
        [
          {
            role: 'system',
            content:
              'You summarise talks about AI transformation in organisations for a curated knowledge base. ' +
              'Answer with JSON only: {"summary": "...", "tags": ["..."]}. The summary is 3 to 5 sentences, factual, ' +
              `in ${lang === 'sl' ? 'Slovenian' : 'English'}, using only what the text says. Tags: 2 to 5, chosen only from this list: ${vocabulary.join(', ')}.`,
          },
          { role: 'user', content: `Title: ${title}\n\nTranscript or description:\n${text.slice(0, 12_000)}` },
        ],
        { temperature: 0.2, maxTokens: 600 },
      );
      const json = /\{[\s\S]*\}/.exec(reply)?.[0];
      if (!json) throw new Error('the language model did not answer with JSON');
      const parsed = JSON.parse(json) as { summary?: unknown; tags?: unknown };
      if (typeof parsed.summary !== 'string' || !parsed.summary.trim()) throw new Error('the language model gave no summary');
      const tags = Array.isArray(parsed.tags) ? parsed.tags.filter((t): t is string => typeof t === 'string' && vocabulary.includes(t)).slice(0, 5) : [];
      return { summary: parsed.summary.trim(), tags };
    },
  };
}
