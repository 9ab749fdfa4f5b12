// Drafts a knowledge concept for a topic from the sources search finds: with the configured LLM, or
// extractively (the sentences that best match the topic, each cited) when there is none or it fails.
// The caller writes the file and files the concept_stub proposal.
import type { Snapshot } from '../../src/lib/content/model.ts';
import type { ConceptSource } from '../../src/lib/content/schema.ts';
import { Tag } from '../../src/lib/content/schema.ts';
import { LlmError, type LlmClient } from '../../src/lib/llm/client.ts';
import { dropDeadSiteLinks, type ConceptFrontIn } from '../../src/lib/content/concept-file.ts';
import { phrasePattern, queryWords, wordPattern, type SourceHit } from './word-search.ts';
import { LINK_OR_IMAGE } from '../../src/lib/text/markup.ts';

export const MAX_CITED = 8;

export interface Draft {
  slug: string;
  front: ConceptFrontIn;
  body: string;
  generator: string;
  cited: SourceHit[];
  warnings: string[];
}

/** A kebab-case slug for a topic (accents folded, at most 80 characters, cut at a hyphen). */
export function slugify(topic: string): string {
  const s = topic.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (s.length <= 80) return s;
  const cut = s.slice(0, 81);
  return (cut.includes('-') ? cut.slice(0, cut.lastIndexOf('-')) : s.slice(0, 80)).replace(/-+$/, '');
}

/** A hit can be cited in front matter when it is content, or a web page with an address. */
export const citable = (h: SourceHit) => h.type !== 'web_page' || h.url !== null;

function linkTarget(h: SourceHit): string {
  if (h.type === 'web_page') return h.url!.replace(/[()\s]/g, (ch) => encodeURIComponent(ch));
  return `/${h.type === 'video' ? 'videos' : h.type === 'essay' ? 'essays' : 'digests'}/${h.id}`;
}
const cite = (h: SourceHit) => `[${h.title.replace(/([[\]\\])/g, '\\$1')}](${linkTarget(h)})`;

function conceptSource(h: SourceHit): ConceptSource {
  if (h.type === 'web_page') return { type: 'web_page', url: h.url!, title: h.title.slice(0, 300) };
  return { type: h.type, id: h.id } as ConceptSource;
}

/**
 * Markdown to plain sentences: links become their text, markup and headings go. Linear in the text (a
 * fetched page's or a language model's): a list marker is looked for on its own line, not across blank
 * lines (`^\s*` from every line start of a long blank run was quadratic), links as in text/markup.ts.
 */
function plain(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(LINK_OR_IMAGE, '$2')
    .replace(/^#{1,6}\s+.*$/gm, ' ')
    .replace(/^[ \t]*(?:[-*+]|\d+\.)[ \t]+/gm, '')
    .replace(/[*_`>]/g, '')
    .replace(/^Sources:.*$/gm, ' ');
}

export function sentences(text: string): string[] {
  return plain(text)
    .split(/\n{2,}|(?<=[.!?])\s+(?=["“(]?[A-Z0-9])/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= 40 && s.length <= 400 && /[.!?]["”)]?$/.test(s));
}

function topicTitle(topic: string): string {
  const t = topic.trim().replace(/\s+/g, ' ');
  return (t.charAt(0).toUpperCase() + t.slice(1)).slice(0, 200);
}

function tagsOf(hits: SourceHit[]): string[] {
  const counts = new Map<string, number>();
  for (const h of hits) for (const t of h.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([t]) => t)
    .filter((t) => Tag.safeParse(t).success)
    .slice(0, 5);
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1).trimEnd()}…`);

function extractive(topic: string, hits: SourceHit[]): { summary: string; body: string; used: SourceHit[] } {
  const words = queryWords(topic);
  const phrase = phrasePattern(words);
  const picked: { hit: number; pos: number; text: string; score: number }[] = [];
  const candidates = hits.flatMap((h, hit) =>
    sentences(h.text).map((text, pos) => {
      const matched = words.filter((w) => new RegExp(wordPattern(w).source, 'i').test(text)).length;
      const together = phrase && new RegExp(phrase.source, 'i').test(text) ? 0.5 : 0;
      // Topic coverage first (the whole phrase best); better-ranked sources and earlier sentences break ties.
      return { hit, pos, text, matched, score: matched / Math.max(1, words.length) + together - hit * 0.01 - Math.min(pos, 50) * 0.001 };
    }),
  );
  candidates.sort((a, b) => b.score - a.score);
  const perSource = new Map<number, number>();
  for (const c of candidates) {
    // A sentence must carry most of the topic, not one of its common words.
    if (picked.length >= 8) break;
    if (c.matched < Math.ceil((words.length * 2) / 3)) continue;
    if ((perSource.get(c.hit) ?? 0) >= 2 || picked.some((p) => p.text === c.text)) continue;
    perSource.set(c.hit, (perSource.get(c.hit) ?? 0) + 1);
    picked.push(c);
  }
  const best = picked[0];
  picked.sort((a, b) => a.hit - b.hit || a.pos - b.pos);
  const summary = best ? clip(best.text, 1000) : `${topicTitle(topic)}, as discussed in ${hits.length} source${hits.length === 1 ? '' : 's'} of the knowledge base.`;
  const lines = [
    `*Draft written extractively from the sources found for “${topic.trim()}”: sentences quoted from them, each with its source. It awaits review.*`,
    '',
    '## What the sources say',
    '',
    ...(picked.length ? picked.map((p) => `- ${p.text} (${cite(hits[p.hit])})`) : hits.map((h) => `- ${cite(h)}`)),
  ];
  // Cite what was quoted; with nothing quotable, the best few sources found.
  const used = picked.length ? [...new Set(picked.map((p) => p.hit))].map((i) => hits[i]) : hits.slice(0, 3);
  return { summary, body: lines.join('\n'), used };
}

async function withLlm(topic: string, hits: SourceHit[], llm: LlmClient, snapshot: Snapshot): Promise<{ summary: string; body: string }> {
  const sourceList = hits.map((h, i) => `[${i + 1}] ${h.title}\nCite as: ${cite(h)}\n${clip(plain(h.text).replace(/\s+/g, ' ').trim(), 1500)}`).join('\n\n');
  const answer = await llm.complete([
    {
      role: 'system',
      content:
        'You write concise concept pages for a knowledge base on AI transformation in organisations. Use only the numbered sources. Cite them inline with exactly the Markdown links given after "Cite as". Answer with JSON only: {"summary": "<one-sentence definition>", "body": "<Markdown, 150 to 400 words, ## headings, no level-1 heading>"}.',
    },
    { role: 'user', content: `Topic: ${topic.trim()}\n\nSources:\n\n${sourceList}` },
  ], { maxTokens: 1500 });
  let summary = '';
  let body = '';
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  try {
    const parsed = JSON.parse(answer.slice(start, end + 1)) as { summary?: unknown; body?: unknown };
    summary = typeof parsed.summary === 'string' ? parsed.summary : '';
    body = typeof parsed.body === 'string' ? parsed.body : '';
  } catch {
    body = answer;
  }
  body = dropDeadSiteLinks(body.replace(/^#\s.*$/gm, '').trim(), snapshot);
  summary = plain(summary || sentences(body)[0] || '').replace(/\s+/g, ' ').trim();
  if (!body || !summary) throw new LlmError('the language model answered without a usable summary and body');
  return { summary: clip(summary, 1000), body };
}

/** The draft for `topic` from search hits (best first). Needs at least one citable hit. */
export async function draftConcept(rawTopic: string, slug: string, found: SourceHit[], deps: { llm: LlmClient | null; snapshot: Snapshot }): Promise<Draft> {
  // The topic is user text that ends up in Markdown: no link, emphasis or heading syntax from it.
  const topic = rawTopic.replace(/[[\]()<>*_`#|\\]/g, ' ').replace(/\s+/g, ' ').trim();
  const hits = found.filter(citable).slice(0, MAX_CITED);
  const warnings: string[] = [];
  let text: { summary: string; body: string } | null = null;
  let generator = 'extractive';
  if (deps.llm) {
    try {
      text = await withLlm(topic, hits, deps.llm, deps.snapshot);
      generator = `llm:${deps.llm.model}`;
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      warnings.push(`The language model failed (${err.message}); the draft was written extractively instead.`);
    }
  }
  let cited = hits;
  if (!text) {
    const x = extractive(topic, hits);
    text = x;
    cited = x.used;
  }
  const body = `${text.body.trim()}\n\n## Sources\n\n${cited.map((h) => `- ${cite(h)}`).join('\n')}`;
  return {
    slug,
    front: { title: topicTitle(topic), summary: text.summary, tags: tagsOf(cited), draft: true, sources: cited.map(conceptSource), related: [] },
    body,
    generator,
    cited,
    warnings,
  };
}
