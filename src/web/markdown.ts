// Markdown to HTML for pages: remark (with GitHub tables and lists) → rehype → sanitised HTML. Content is
// written by editors, the pipeline and, for posts, by anyone signed in, so everything goes through
// rehype-sanitize's GitHub schema: no scripts, no event handlers, no javascript: links.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import type { Root } from 'mdast';
import { raw, type SafeHtml } from './html.ts';

/** Moves every heading `offset` levels down (at most h6), so an embedded document fits under the page's. */
function shiftHeadings(offset: number) {
  return () => (tree: Root) => {
    const walk = (node: { type: string; depth?: number; children?: unknown[] }) => {
      if (node.type === 'heading' && node.depth) node.depth = Math.min(6, node.depth + offset) as typeof node.depth;
      for (const child of (node.children ?? []) as (typeof node)[]) walk(child);
    };
    walk(tree as never);
  };
}

const processors = new Map<number, ReturnType<typeof build>>();
function build(offset: number) {
  return unified().use(remarkParse).use(remarkGfm).use(shiftHeadings(offset)).use(remarkRehype).use(rehypeSanitize).use(rehypeStringify).freeze();
}

/**
 * Renders Markdown. `dropTitle` removes a leading level-1 heading the page shows as its own <h1>;
 * `headingOffset` demotes headings (a digest's `##` items become h3 inside a section of the home page).
 */
export function markdownToHtml(markdown: string, opts: { dropTitle?: boolean; headingOffset?: number } = {}): SafeHtml {
  const offset = opts.headingOffset ?? 0;
  let processor = processors.get(offset);
  if (!processor) processors.set(offset, (processor = build(offset)));
  const text = opts.dropTitle ? markdown.replace(/^\s*# [^\n]*\n/, '') : markdown;
  return raw(String(processor.processSync(text)));
}
