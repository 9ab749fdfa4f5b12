// Markdown helpers over remark's syntax tree: the digest shape check, link extraction, and the rewrite of
// site links into their agent form.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import { toString as mdToString } from 'mdast-util-to-string';
import type { Root, RootContent, Link, Paragraph } from 'mdast';
import type { Digest, DigestItem } from './model.ts';

const parser = unified().use(remarkParse);

export function parseMarkdown(text: string): Root {
  return parser.parse(text);
}

/** Every link URL in a document, in order. */
export function linkUrls(tree: Root): string[] {
  const out: string[] = [];
  const walk = (node: { type: string; children?: unknown[]; url?: string }) => {
    if (node.type === 'link' && node.url) out.push(node.url);
    for (const child of (node.children ?? []) as (typeof node)[]) walk(child);
  };
  walk(tree as never);
  return out;
}

/**
 * linkUrls(parseMarkdown(text)), without the parse when the text cannot hold a link: in CommonMark a link
 * starts with "[" (inline, reference, collapsed and shortcut links) or "<" (autolinks), so a text with
 * neither has none (most essays: parsing them only to find nothing cost ~40% of a first load's link checks).
 */
export function markdownLinks(text: string): string[] {
  return /[[<]/.test(text) ? linkUrls(parseMarkdown(text)) : [];
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

function text(node: RootContent): string {
  return mdToString(node).trim();
}

/**
 * Parses a digest body in the spec's exact shape: a level-1 title, one intro line, then five numbered
 * level-2 items (`## 1.` … `## 5.`), each a paragraph and a `Sources:` line of `[title](/videos/<id>)` links.
 */
export function parseDigest(date: string, body: string): Digest {
  const nodes = parseMarkdown(body).children.filter((n) => n.type !== 'html' || !/^<!--/.test((n as { value: string }).value));
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
    items.push({ number: n, headline: m![2].trim(), paragraph: text(paragraph!), sources: parseSourcesLine(n, sources as Paragraph) });
  }
  if (items.length !== 5) fail(`expected exactly five items, found ${items.length}`);
  return { date, title: text(title!), intro: text(intro!), items, content: body.trim() + '\n' };
}

function parseSourcesLine(n: number, line: Paragraph): DigestItem['sources'] {
  const links = line.children.filter((c): c is Link => c.type === 'link');
  // Everything between the links must be the separator ", " (and the "Sources: " prefix before the first).
  const glue = line.children
    .filter((c) => c.type !== 'link')
    .map((c) => mdToString(c))
    .join('|');
  const expectedGlue = ['Sources: ', ...Array(Math.max(0, links.length - 1)).fill(', ')].join('|');
  if (links.length === 0 || glue.trimEnd() !== expectedGlue.trimEnd()) {
    throw new DigestShapeError(`item ${n}: the Sources line must be "Sources: [title](/videos/<id>)" links separated by ", "`);
  }
  return links.map((link) => {
    const m = /^\/videos\/([A-Za-z0-9_-]+)$/.exec(link.url);
    if (!m) throw new DigestShapeError(`item ${n}: source link ${link.url} is not of the form /videos/<video_id>`);
    return { title: mdToString(link).trim(), video_id: m[1] };
  });
}
