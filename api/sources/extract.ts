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

/** Text of a DOM subtree with block elements on their own lines (textContent would glue "Title" and "Body"). */
function blockText(root: DomNode): string {
  const out: string[] = [];
  const walk = (n: DomNode) => {
    if (n.nodeType === 3) {
      out.push(n.textContent ?? '');
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    if (SKIP.has(n.nodeName.toUpperCase())) return;
    const block = BLOCK.has(n.nodeName.toUpperCase());
    if (block) out.push('\n\n');
    for (let i = 0; i < n.childNodes.length; i++) walk(n.childNodes[i]);
    if (block) out.push('\n\n');
  };
  walk(root);
  return tidy(out.join(''));
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
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  let text = '';
  if (article?.content) text = blockText(parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document as unknown as DomNode);
  if (!text) text = blockText((parseHTML(html).document.body ?? parseHTML(html).document) as unknown as DomNode);
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
