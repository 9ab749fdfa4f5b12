// Each persona as MCP prompts, one per mode and language its modelfiles have (agent-engineer-chat-en, …):
// the modelfile's SYSTEM text, its parameters as advice, and how to ground the answer in this knowledge
// base with the search tool, then the person's question. The same modelfiles drive /api/chat.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ContentState } from '../content/index.ts';
import { parseModelfile } from '../../src/lib/personas/modelfile.ts';

const LANGUAGE = { en: 'English', sl: 'Slovenian' } as const;
const MODE = { chat: 'a conversation', brief: 'a short briefing' } as Record<string, string>;

export function promptName(personaId: string, mode: string, lang: string): string {
  return `${personaId}-${mode}-${lang}`;
}

export function registerPrompts(server: McpServer, state: () => ContentState): void {
  const { snapshot } = state();
  for (const p of snapshot.personas) {
    for (const key of p.modelfiles.keys()) {
      const [mode, lang] = key.split('/');
      const language = LANGUAGE[lang as keyof typeof LANGUAGE] ?? lang;
      server.registerPrompt(
        promptName(p.persona_id, mode, lang),
        {
          title: `${p.name} (${mode}, ${language})`,
          description: `${p.description} Answers in ${language}, as ${MODE[mode] ?? mode}, from this knowledge base.`,
          argsSchema: {
            question: z.string().max(4000).optional().describe('What to ask the persona; leave it out to get the persona\'s instructions alone.'),
          },
        },
        ({ question }): GetPromptResult => {
          const text = state().snapshot.personasById.get(p.persona_id)?.modelfiles.get(key);
          if (text === undefined) throw new Error(`The persona ${p.persona_id} no longer has the ${mode} mode in ${lang}`);
          const mf = parseModelfile(text);
          const params = Object.entries(mf.parameters)
            .filter(([k]) => ['temperature', 'top_p', 'num_predict'].includes(k))
            .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : v}`);
          const instructions = [
            mf.system ?? `You are ${p.name}. ${p.description}`,
            `Answer in ${language}. Ground every claim in this knowledge base: use the search tool (and get_item for the full text), ` +
              'cite each source by its page_url, and say so when the knowledge base has nothing on the question.',
            ...(params.length ? [`Model settings this persona is tuned for: ${params.join('; ')}.`] : []),
          ].join('\n\n');
          return {
            description: `${p.name}, ${mode} mode, in ${language}`,
            messages: [{ role: 'user', content: { type: 'text', text: question ? `${instructions}\n\nQuestion: ${question}` : instructions } }],
          };
        },
      );
    }
  }
}
