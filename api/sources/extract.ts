// Title, readable text and rel=canonical of a fetched page, with a real HTML parser (linkedom) and
// Mozilla's Readability (the Firefox reader view) to drop navigation, ads and boilerplate.
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';

export const MAX_TEXT_CHARS = 200_000;

export interface Extracted {
  title: string;
  text: string;
  /** The page's own rel=canonical, resolved against its URL; undefined when absent or invalid. */
  canonical?: string;
}

const BLOCK = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'LI', 'UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'PRE', 'TR', 'TABLE', 'BR', 'HR', 'FIGCAPTION', 'DD', 'DT', 'HEADER', 'FOOTER', 'MAIN', 'ASIDE']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'NAV', 'IFRAME']);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/**
 * Text of a DOM subtree with block elements on their own lines (textContent would glue "Title" and "Body").
 * Walked with a stack of its own, not by recursion: a page nested 20,000 deep must not overflow the stack.
 */
function blockText(root: DomNode): string {
  const out: string[] = [];
  // A node to enter, or the string to write when a block element's children are done.
  const stack: (DomNode | string)[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (typeof n === 'string') {
      out.push(n);
      continue;
    }
    if (n.nodeType === 3) {
      out.push(n.textContent ?? '');
      continue;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) continue;
    if (SKIP.has(n.nodeName.toUpperCase())) continue;
    const block = BLOCK.has(n.nodeName.toUpperCase());
    if (block) {
      out.push('\n\n');
      stack.push('\n\n');
    }
    // childNodes once per node: linkedom builds the list anew at each access (quadratic in a loop's test).
    const kids = n.childNodes;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return tidy(out.join(''));
}

/**
 * Readability reads pages of this shape in well under a second; past it, its cost grows steeply with the
 * DOM as linkedom builds it (1,000 nested elements took 5 s, 50,000 links 188 s: the event loop's, before
 * extraction moved to a thread), so a larger or deeper page is read as plain block text instead.
 */
export const READABLE_SHAPE = { elements: 10_000, depth: 150 };

/** Whether the document is within READABLE_SHAPE: one walk with a stack, stopping as soon as it is not. */
function readableShape(root: DomNode): boolean {
  const stack: [DomNode, number][] = [[root, 0]];
  let elements = 0;
  while (stack.length) {
    const [n, depth] = stack.pop()!;
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) continue;
    if (++elements > READABLE_SHAPE.elements || depth > READABLE_SHAPE.depth) return false;
    const kids = n.childNodes;
    for (let i = 0; i < kids.length; i++) stack.push([kids[i], depth + 1]);
  }
  return true;
}

export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, MAX_TEXT_CHARS);
}

export function extractHtml(html: string, pageUrl: string): Extracted {
  const { document } = parseHTML(html);
  const canonicalHref = [...document.querySelectorAll('link[rel][href]')]
    .find((l) => (l.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical'))
    ?.getAttribute('href');
  let canonical: string | undefined;
  if (canonicalHref) {
    try {
      canonical = new URL(canonicalHref.trim(), pageUrl).toString();
    } catch {
      canonical = undefined;
    }
  }
  const headTitle = (document.querySelector('meta[property="og:title"]')?.getAttribute('content') ?? document.title ?? '').trim();
  // Readability changes the document it reads, so it comes after everything read from the head.
  let article: { title?: string | null; content?: string | null } | null = null;
  if (readableShape(document as unknown as DomNode)) {
    try {
      article = new Readability(document as unknown as Document, { charThreshold: 200, maxElemsToParse: READABLE_SHAPE.elements }).parse();
    } catch {
      article = null;
    }
  }
  let text = '';
  if (article?.content) text = blockText(parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document as unknown as DomNode);
  if (!text) {
    const again = parseHTML(html).document;
    text = blockText((again.body ?? again) as unknown as DomNode);
  }
  const title = (article?.title?.trim() || headTitle || firstLine(text) || pageUrl).slice(0, 300);
  return { title, text, canonical };
}

export function extractPlainText(text: string, pageUrl: string): Extracted {
  const clean = tidy(text);
  return { title: (firstLine(clean) || pageUrl).slice(0, 300), text: clean };
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 120);
}
