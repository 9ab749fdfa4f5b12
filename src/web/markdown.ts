// Markdown to HTML for pages: markdown-it (CommonMark, with GitHub's tables, strikethrough, task lists,
// footnotes and autolinks). Content is written by editors, the pipeline (an LLM's summaries among it) and,
// for posts, by anyone signed in, so the output holds no HTML the author wrote: raw HTML in the Markdown is
// parsed as CommonMark parses it and then dropped (as remark-rehype dropped it before), and a link or image
// keeps its URL only when it is relative or http(s), mailto, xmpp, irc or ircs (GitHub's list, which
// rehype-sanitize applied before); any other (javascript:, data:, vbscript:, …) leaves the text unlinked.
// Everything else markdown-it emits is its own markup with escaped text and attributes.
//
// Why markdown-it rather than remark → rehype → rehype-sanitize: the same pages cost a tenth of the time
// (a 10k-video site renders ~12k Markdown documents per build: 15 s of CPU with remark, ~1 s here; see
// docs/decisions/0049-markdown-it.md). Unlike GitHub, a bare "www.example.com" is not linked (with a scheme it is): the
// linkifier would otherwise take any "name.tld" for a link ("index.ts" among them).
import markdownIt, { type MarkdownIt, type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import { raw, type SafeHtml } from './html.ts';

/** The URL schemes a link or image may have (GitHub's sanitiser schema's); a URL without one is relative. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'xmpp', 'irc', 'ircs']);

/**
 * True when a URL is relative or has a safe scheme. A colon after the first "/", "?" or "#" is no scheme's
 * ("/a:b", "?x=y:z"); one before it is, whatever precedes it ("%01javascript:" is refused, not let
 * through as relative: browsers strip some leading characters before they read the scheme).
 */
export function safeUrl(url: string): boolean {
  const u = url.trim();
  const colon = u.indexOf(':');
  if (colon === -1) return true;
  const cut = u.search(/[/?#]/);
  if (cut !== -1 && cut < colon) return true;
  return SAFE_SCHEMES.has(u.slice(0, colon).toLowerCase());
}

const TASK = /^\[([ xX])\][ \t]/;

/**
 * GitHub's task lists: a list item whose text starts with "[ ] " or "[x] " gets a disabled checkbox (its
 * own token type: raw HTML tokens are dropped) and the class names remark-gfm gave it.
 */
function taskLists(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'kb_task_lists', (state) => {
    const tokens = state.tokens;
    /** The lists open at this token, innermost last. */
    const lists: Token[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') lists.push(t);
      else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') lists.pop();
      if (t.type !== 'inline' || i < 2 || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
      const first = t.children?.[0];
      const m = first?.type === 'text' ? TASK.exec(first.content) : null;
      if (!m || !first) continue;
      first.content = first.content.slice(m[0].length - 1); // the space after the box stays, as GitHub shows it
      const box = new state.Token('kb_task_checkbox', 'input', 0);
      box.meta = { checked: m[1] !== ' ' };
      t.children!.unshift(box);
      tokens[i - 2].attrJoin('class', 'task-list-item');
      const list = lists[lists.length - 1];
      if (list && !String(list.attrGet('class') ?? '').split(' ').includes('contains-task-list')) list.attrJoin('class', 'contains-task-list');
    }
  });
  md.renderer.rules.kb_task_checkbox = (tokens, idx) => ((tokens[idx].meta as { checked: boolean }).checked ? '<input type="checkbox" checked disabled>' : '<input type="checkbox" disabled>');
}

/** Table cells say their alignment with align="…" (as before), not with a style attribute the CSP would refuse. */
function alignAttributes(md: MarkdownIt): void {
  md.core.ruler.push('kb_align', (state) => {
    for (const t of state.tokens) {
      if (t.type !== 'th_open' && t.type !== 'td_open') continue;
      const m = /^text-align:(left|right|center)$/.exec(String(t.attrGet('style') ?? ''));
      if (!t.attrs || !m) continue;
      t.attrs = t.attrs.filter(([name]) => name !== 'style');
      t.attrSet('align', m[1]);
    }
  });
}

/** Moves every heading `offset` levels down (at most h6), so an embedded document fits under the page's. */
function shiftHeadings(offset: number) {
  return (md: MarkdownIt) => {
    md.core.ruler.push('kb_shift_headings', (state) => {
      for (const t of state.tokens as Token[]) {
        if (t.type === 'heading_open' || t.type === 'heading_close') t.tag = `h${Math.min(6, Number(t.tag.slice(1)) + offset)}`;
      }
    });
  };
}

function build(offset: number): MarkdownIt {
  // html: true so raw HTML is recognised where CommonMark says it is, and then rendered as nothing.
  const md = new markdownIt('default', { html: true, linkify: true, typographer: false });
  md.linkify.set({ fuzzyLink: false, fuzzyIP: false, fuzzyEmail: true });
  md.linkify.add('//', null).add('ftp:', null);
  md.validateLink = safeUrl;
  md.renderer.rules.html_block = () => '';
  md.renderer.rules.html_inline = () => '';
  // GitHub's strikethrough is <del>, as remark-gfm made it; markdown-it says <s>.
  md.renderer.rules.s_open = () => '<del>';
  md.renderer.rules.s_close = () => '</del>';
  md.use(footnote).use(taskLists).use(alignAttributes);
  if (offset) md.use(shiftHeadings(offset));
  return md;
}

const processors = new Map<number, MarkdownIt>();

/**
 * Renders Markdown. `dropTitle` removes a leading level-1 heading the page shows as its own <h1>;
 * `headingOffset` demotes headings (a digest's `##` items become h3 inside a section of the home page).
 */
export function markdownToHtml(markdown: string, opts: { dropTitle?: boolean; headingOffset?: number } = {}): SafeHtml {
  const offset = opts.headingOffset ?? 0;
  let processor = processors.get(offset);
  if (!processor) processors.set(offset, (processor = build(offset)));
  const text = opts.dropTitle ? markdown.replace(/^\s*# [^\n]*\n/, '') : markdown;
  return raw(processor.render(text).trimEnd());
}
