// Markdown and HTML markup as regular expressions that run in linear time on any input. The texts they
// meet are the callers' (a post's essay, a fetched web page, a language model's answer), so each pattern is
// written so that no start position rescans what another already scanned: a link's text and its target
// hold no bracket, so a "[" looks only as far as the next bracket and a "](" only as far as the next
// bracket or ")", and a tag holds no "<". The looser forms these replace
// (`\[([^\]]*)\]\(…\)`, `<[^>]+>`, `<!--[\s\S]*?-->`) rescanned to the end of the text from every "[", "<"
// or "<!--" that did not close: quadratic, seconds for 100,000 of them.

/** `[text](target)`; group 1 the text, group 2 the target. Global: use with replace or matchAll. */
export const LINK = /\[([^[\]]*)\]\(([^)[\]]*)\)/g;
/** `![alt](src)` or `[text](target)`; group 1 `!` for an image, group 2 the text, group 3 the target. */
export const LINK_OR_IMAGE = /(!?)\[([^[\]]*)\]\(([^)[\]]*)\)/g;
/** `![alt](src)`; group 1 the alt text. */
export const IMAGE = /!\[([^[\]]*)\]\(([^)[\]]*)\)/g;
/** An HTML tag (or anything between a "<" and the next ">" without another "<" between). */
export const HTML_TAG = /<[^<>]+>/g;

/** `text` with every `<!-- … -->` comment replaced by `by`; one pass with indexOf (an unclosed one stays). */
export function replaceHtmlComments(text: string, by: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open === -1) break;
    const close = text.indexOf('-->', open + 4);
    if (close === -1) break;
    out += text.slice(from, open) + by;
    from = close + 3;
  }
  return from === 0 ? text : out + text.slice(from);
}
