// Pages for agents that prefer another form (issue 16, item 10): every page names its Markdown twin
// (<page>.md) and its JSON document in a `Link: rel=alternate` header, and a request whose Accept prefers
// application/json or text/markdown over text/html gets that twin instead of the HTML (its own bytes,
// ETag and Content-Type, with Content-Location and Vary: Accept). Browsers send text/html first and
// get the page as before.
import { pageAlternates } from '../../src/lib/read/links.ts';

export type PageForm = 'html' | 'json' | 'markdown';
const MEDIA: Record<PageForm, string> = { html: 'text/html', json: 'application/json', markdown: 'text/markdown' };

/**
 * Which form of a page an Accept header prefers (RFC 9110 §12.5.1: the most specific range that matches
 * a type gives its weight; on equal weight HTML wins, then Markdown). No Accept, or only wildcards: HTML.
 */
export function preferredForm(accept: string | undefined): PageForm {
  if (!accept) return 'html';
  const ranges = accept.split(',').map((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { range: range.trim(), q: q === undefined ? 1 : Math.min(1, Number(q) || 0) };
  });
  const weight = (media: string) => {
    const [type] = media.split('/');
    const exact = ranges.find((r) => r.range === media);
    const family = ranges.find((r) => r.range === `${type}/*`);
    const any = ranges.find((r) => r.range === '*/*');
    return (exact ?? family ?? any)?.q ?? 0;
  };
  let best: PageForm = 'html';
  let bestQ = weight(MEDIA.html);
  for (const form of ['markdown', 'json'] as const) {
    const q = weight(MEDIA[form]);
    if (q > bestQ) [best, bestQ] = [form, q];
  }
  return best;
}

/** The `Link` header of a page: its Markdown and JSON alternates; null for a path that is not a page. */
export function alternateLinks(urlPath: string): string | null {
  const a = pageAlternates(urlPath);
  if (!a) return null;
  return [`<${a.markdown}>; rel="alternate"; type="text/markdown"`, ...(a.json ? [`<${a.json}>; rel="alternate"; type="application/json"`] : [])].join(', ');
}

/** Where the twin a request prefers lives, or null when it wants the HTML (or the path is not a page). */
export function twinPath(urlPath: string, accept: string | undefined): string | null {
  const form = preferredForm(accept);
  if (form === 'html') return null;
  const a = pageAlternates(urlPath);
  if (!a) return null;
  return form === 'markdown' ? a.markdown : a.json;
}

/** A twin's flat header array with Vary: Accept (merged into any Vary it has) and its Content-Location. */
export function twinHeaders(headers: string[], location: string): string[] {
  const out: string[] = [];
  let varied = false;
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] === 'Vary') {
      varied = true;
      out.push('Vary', headers[i + 1].split(/\s*,\s*/).includes('Accept') ? headers[i + 1] : `Accept, ${headers[i + 1]}`);
    } else out.push(headers[i], headers[i + 1]);
  }
  // Content-Length stays last: the 304 answer drops the last pair.
  const length = out.splice(out.length - 2, 2);
  return [...out, ...(varied ? [] : ['Vary', 'Accept']), 'Content-Location', location, ...length];
}
