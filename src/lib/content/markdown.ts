// Markdown helpers over markdown-it's tokens: the digest shape check, link extraction, and the rewrite of
// site links into their agent form. Parsed as CommonMark (no tables, strikethrough or bare-URL links) with
// raw HTML recognised where CommonMark says it is, as the page renderer (src/web/markdown.ts) parses it
// less GitHub's additions; every link is kept with its URL as written (no scheme refused, nothing
// percent-encoded), for the loader to check.
import markdownIt, { type Token } from 'markdown-it';
import type { Digest, DigestItem } from './model.ts';

const md = markdownIt('commonmark', { html: true });
md.validateLink = () => true;
md.normalizeLink = (url) => url;
md.normalizeLinkText = (text) => text;

/** A text's block tokens. */
function parse(text: string): Token[] {
  return md.parse(text, {});
}

/**
 * The URL of every link in a document, in order: inline links, reference links (as their definitions
 * resolve them) and autolinks, as the page renderer links them; images are not links.
 */
export function markdownLinks(text: string): string[] {
  // In CommonMark a link starts with "[" or "<": a text with neither has none (most essays).
  if (!/[[<]/.test(text)) return [];
  const out: string[] = [];
  for (const block of parse(text)) {
    for (const t of block.children ?? []) if (t.type === 'link_open') out.push(String(t.attrGet('href') ?? ''));
  }
  return out;
}

/** Site-internal link targets: /videos/<id>, /essays/<slug>, /knowledge/<slug>, /digests/<date>, /personas/<id>. */
export const SITE_LINK = /^\/(videos|essays|knowledge|digests|personas)\/([^/?#\s]+)$/;

const SITE_LINK_IN_MARKDOWN = /\]\(\/(videos|essays|knowledge|digests|personas)\/([^/?#\s)]+)\)/g;

/**
 * Rewrites `[t](/videos/<id>)`-style links to the API's agent form `[t](/api/videos/<id>?agent=true)`, so an
 * agent that follows them keeps receiving machine-readable documents.
 */
export function rewriteLinksForAgents(markdown: string): string {
  return markdown.replace(SITE_LINK_IN_MARKDOWN, (_m, kind: string, id: string) => `](/api/${kind}/${id}?agent=true)`);
}

export class DigestShapeError extends Error {}

const ITEM_HEADING = /^([1-5])\.\s+(\S.*)$/;

/**
 * A document's top-level block: a heading (with its depth) or paragraph with its inline tokens, raw HTML,
 * a link reference definition, or another kind.
 */
interface Block {
  type: string;
  depth?: number;
  inline?: Token[];
  html?: string;
}

function blocks(text: string): Block[] {
  const tokens = parse(text);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  // markdown-it makes no token of a link reference definition (it only records it), and every other
  // non-blank line belongs to a block's lines: a non-blank line between blocks is a definition.
  let next = 0;
  const definitionsBefore = (line: number) => {
    if (lines.slice(next, line).some((l) => l.trim() !== '')) out.push({ type: 'definition' });
  };
  tokens.forEach((t, i) => {
    if (t.level !== 0 || t.nesting === -1) return; // inside a container, or a closing token
    if (t.map) {
      definitionsBefore(t.map[0]);
      next = t.map[1];
    }
    if (t.type === 'heading_open') out.push({ type: 'heading', depth: Number(t.tag.slice(1)), inline: tokens[i + 1].children ?? [] });
    else if (t.type === 'paragraph_open') out.push({ type: 'paragraph', inline: tokens[i + 1].children ?? [] });
    else if (t.type === 'html_block') out.push({ type: 'html', html: t.content });
    else out.push({ type: t.type.replace(/_open$/, '') });
  });
  definitionsBefore(lines.length);
  return out;
}

/**
 * An inline span's nodes as a syntax tree has them: runs of text (line breaks within them included), links
 * (their URL and text) and the other spans (emphasis, code, raw HTML, hard breaks, images), each with the
 * text it reads as (an image's alt text; markup and raw HTML tags as written).
 */
function inlineNodes(tokens: Token[]): { text: string; href?: string; plain?: boolean }[] {
  const out: { text: string; href?: string; plain?: boolean }[] = [];
  let depth = 0;
  for (const t of tokens) {
    const topLevel = depth === 0;
    depth += t.nesting;
    const plain = t.type === 'text' || t.type === 'softbreak';
    const piece = t.type === 'text' || t.type === 'code_inline' || t.type === 'html_inline' ? t.content : t.type === 'softbreak' ? '\n' : t.type === 'image' ? plainText(t.children ?? []) : '';
    if (!topLevel || (plain && out.at(-1)?.plain)) out.at(-1)!.text += piece; // inside a span, or a run of text going on
    else if (t.type === 'link_open') out.push({ text: piece, href: String(t.attrGet('href') ?? '') });
    else out.push({ text: piece, plain });
  }
  return out;
}

function plainText(tokens: Token[]): string {
  return inlineNodes(tokens)
    .map((n) => n.text)
    .join('');
}

function text(block: Block): string {
  return plainText(block.inline ?? []).trim();
}

/**
 * Parses a digest body in the spec's exact shape: a level-1 title, one intro line, then five numbered
 * level-2 items (`## 1.` … `## 5.`), each a paragraph and a `Sources:` line of `[title](/videos/<id>)` links.
 */
export function parseDigest(date: string, body: string): Digest {
  const nodes = blocks(body).filter((n) => n.type !== 'html' || !/^<!--/.test(n.html!));
  const fail = (msg: string): never => {
    throw new DigestShapeError(msg);
  };
  const [title, intro, ...rest] = nodes;
  if (!title || title.type !== 'heading' || title.depth !== 1) fail('must open with a level-1 title');
  if (!intro || intro.type !== 'paragraph') fail('needs one intro line after the title');
  if (text(intro!).includes('\n')) fail('the intro must be a single line');
  const items: DigestItem[] = [];
  for (let i = 0; i < rest.length; i += 3) {
    const [heading, paragraph, sources] = rest.slice(i, i + 3);
    const n = items.length + 1;
    if (!heading || heading.type !== 'heading' || heading.depth !== 2) fail(`item ${n}: expected a level-2 heading "## ${n}. …"`);
    const m = ITEM_HEADING.exec(text(heading!));
    if (!m || Number(m[1]) !== n) fail(`item ${n}: the heading must read "## ${n}. <headline>"`);
    if (!paragraph || paragraph.type !== 'paragraph' || /^Sources:/.test(text(paragraph))) fail(`item ${n}: needs a paragraph`);
    if (!sources || sources.type !== 'paragraph' || !/^Sources:\s/.test(text(sources))) fail(`item ${n}: needs a "Sources:" line`);
    items.push({ number: n, headline: m![2].trim(), paragraph: text(paragraph!), sources: parseSourcesLine(n, sources!) });
  }
  if (items.length !== 5) fail(`expected exactly five items, found ${items.length}`);
  return { date, title: text(title!), intro: text(intro!), items, content: body.trim() + '\n' };
}

function parseSourcesLine(n: number, line: Block): DigestItem['sources'] {
  const nodes = inlineNodes(line.inline ?? []);
  const links = nodes.filter((c) => c.href !== undefined);
  // Everything between the links must be the separator ", " (and the "Sources: " prefix before the first).
  const glue = nodes
    .filter((c) => c.href === undefined)
    .map((c) => c.text)
    .join('|');
  const expectedGlue = ['Sources: ', ...Array(Math.max(0, links.length - 1)).fill(', ')].join('|');
  if (links.length === 0 || glue.trimEnd() !== expectedGlue.trimEnd()) {
    throw new DigestShapeError(`item ${n}: the Sources line must be "Sources: [title](/videos/<id>)" links separated by ", "`);
  }
  return links.map((link) => {
    const m = /^\/videos\/([A-Za-z0-9_-]+)$/.exec(link.href!);
    if (!m) throw new DigestShapeError(`item ${n}: source link ${link.href} is not of the form /videos/<video_id>`);
    return { title: link.text.trim(), video_id: m[1] };
  });
}
