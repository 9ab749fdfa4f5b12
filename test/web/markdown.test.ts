// Markdown to HTML (src/web/markdown.ts): what pages and posts show of Markdown written by editors, the
// pipeline and anyone signed in. The output is parsed with a real HTML parser and every element and
// attribute is checked against what the renderer may emit, so a hostile input that slipped a tag, an event
// handler or a script URL through would fail here whatever its spelling.
import { describe, expect, it } from 'vitest';
import { parseHTML } from 'linkedom';
import { markdownToHtml, safeUrl } from '../../src/web/markdown.ts';

const html = (md: string, opts?: Parameters<typeof markdownToHtml>[1]) => markdownToHtml(md, opts).value;

/** Elements and attributes the renderer's own markup uses; anything else came from the input. */
const ALLOWED: Record<string, string[]> = {
  a: ['href', 'title', 'id', 'class'],
  img: ['src', 'alt', 'title'],
  input: ['type', 'checked', 'disabled'],
  th: ['align'],
  td: ['align'],
  code: ['class'],
  ul: ['class'],
  ol: ['class', 'start'],
  li: ['class', 'id'],
  sup: ['class'],
  section: ['class'],
  hr: ['class'],
};
const PLAIN = ['p', 'em', 'strong', 'del', 'pre', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'br', 'hr'];

function elements(out: string): Element[] {
  const { document } = parseHTML(`<!doctype html><html><body>${out}</body></html>`);
  return [...document.body.querySelectorAll('*')];
}

/** Fails with the offending element when the output holds markup the renderer does not make itself. */
function expectOnlyOwnMarkup(out: string): void {
  for (const el of elements(out)) {
    const tag = el.tagName.toLowerCase();
    expect(tag in ALLOWED || PLAIN.includes(tag), `element <${tag}> in ${out}`).toBe(true);
    for (const attr of el.getAttributeNames()) {
      expect(ALLOWED[tag]?.includes(attr), `attribute ${attr} on <${tag}> in ${out}`).toBe(true);
      if (attr === 'href' || attr === 'src') expect(safeUrl(el.getAttribute(attr)!), `${attr}="${el.getAttribute(attr)}"`).toBe(true);
    }
    if (tag === 'input') expect(el.getAttribute('type')).toBe('checkbox');
  }
}

const HOSTILE = [
  '<script>alert(1)</script>',
  'before <script>alert(1)</script> after',
  '<img src=x onerror=alert(1)>',
  'text <img src="x" onerror="alert(1)"> text',
  '<iframe src="https://evil.example"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<style>body{display:none}</style>',
  '<div onclick="alert(1)">click</div>',
  '[a](javascript:alert(1))',
  '[a](JaVaScRiPt:alert(1))',
  '[a](  javascript:alert(1)  )',
  '[a](&#106;avascript:alert(1))',
  '[a](&#x6A;avascript&#58;alert(1))',
  '[a](java&#x09;script:alert(1))',
  '[a](%01javascript:alert(1))',
  '[a](vbscript:msgbox(1))',
  '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![i](javascript:alert(1))',
  '![i](data:image/svg+xml,<svg onload=alert(1)>)',
  '<javascript:alert(1)>',
  '[a]: javascript:alert(1)\n\n[a]',
  '[a](/x "t\\" onmouseover=\\"alert(1)")',
  '[a](/x" onmouseover="alert(1))',
  '![i" onerror="alert(1)](/x.png)',
  '```js" onmouseover="alert(1)\ncode\n```',
  '| a |\n|---|\n| <script>alert(1)</script> |',
  '- [ ] <img src=x onerror=alert(1)>',
  'x[^1]\n\n[^1]: <script>alert(1)</script>',
];

describe('markdownToHtml: nothing the author writes becomes markup of its own', () => {
  it.each(HOSTILE)('%s', (md) => {
    const out = html(md);
    expectOnlyOwnMarkup(out);
    expect(out).not.toMatch(/<script|<iframe|<style/i); // an event handler would be an attribute the check above refuses
  });

  it('drops raw HTML, as the renderer before it did, and keeps the Markdown around it', () => {
    expect(html('x <b>bold</b> y\n\n<div>block</div>\n\nafter')).toBe('<p>x bold y</p>\n<p>after</p>');
  });

  it('keeps relative, http(s) and mailto links, and leaves others as text', () => {
    const out = html('[v](/videos/abc) [w](https://example.com/a?b=c#d) [m](mailto:a@example.com) [f](ftp://example.com) [j](javascript:x)');
    expect(out).toContain('<a href="/videos/abc">v</a>');
    expect(out).toContain('<a href="https://example.com/a?b=c#d">w</a>');
    expect(out).toContain('<a href="mailto:a@example.com">m</a>');
    // Shown as written, unlinked.
    expect(out).toContain('[f](ftp://example.com)');
    expect(out).toContain('[j](javascript:x)');
    expect(out).not.toMatch(/href="(ftp|javascript):/);
  });

  it('safeUrl: relative URLs and the listed schemes only', () => {
    for (const ok of ['/videos/x', 'videos/x', '#top', '?q=a:b', '/a:b', 'https://x', 'HTTP://x', 'mailto:a@b', 'ircs://x', '']) expect(safeUrl(ok), ok).toBe(true);
    for (const bad of ['javascript:x', ' JAVASCRIPT:x', 'data:x', 'vbscript:x', 'file:///etc/passwd', '%01javascript:x', 'ftp://x']) expect(safeUrl(bad), bad).toBe(false);
  });
});

describe('markdownToHtml: GitHub Markdown', () => {
  it('tables say their alignment with align, not a style attribute (the CSP refuses inline styles)', () => {
    const out = html('| a | b | c |\n|:--|--:|:-:|\n| 1 | 2 | 3 |');
    expect(out).toContain('<th align="left">a</th>');
    expect(out).toContain('<td align="right">2</td>');
    expect(out).toContain('<td align="center">3</td>');
    expect(out).not.toContain('style=');
    expectOnlyOwnMarkup(out);
  });

  it('strikethrough, task lists, footnotes and autolinks', () => {
    expect(html('~~gone~~')).toBe('<p><del>gone</del></p>');
    const tasks = html('- [ ] open\n- [x] done\n- plain');
    expect(tasks).toContain('<ul class="contains-task-list">');
    expect(tasks).toContain('<li class="task-list-item"><input type="checkbox" disabled> open</li>');
    expect(tasks).toContain('<li class="task-list-item"><input type="checkbox" checked disabled> done</li>');
    expect(tasks).toContain('<li>plain</li>');
    // A task list inside a plain list: the inner list is the one marked.
    expect(html('- outer\n  - [ ] inner\n- plain')).toMatch(/^<ul>\n<li>outer\n<ul class="contains-task-list">\n<li class="task-list-item">/);
    const notes = html('Claim[^1].\n\n[^1]: The source.');
    expect(notes).toContain('href="#fn1"');
    expect(notes).toMatch(/<li id="fn1"[^>]*><p>The source\./);
    const links = html('See https://example.com/x, write to a@example.com; index.ts is a file name.');
    expect(links).toContain('<a href="https://example.com/x">https://example.com/x</a>');
    expect(links).toContain('<a href="mailto:a@example.com">a@example.com</a>');
    expect(links).toContain('index.ts is a file name');
    expect(links).not.toContain('http://index.ts');
  });

  it('dropTitle removes a leading level-1 heading; headingOffset demotes the rest (at most h6)', () => {
    expect(html('# Title\n\nBody', { dropTitle: true })).toBe('<p>Body</p>');
    expect(html('# Title\n\nBody')).toBe('<h1>Title</h1>\n<p>Body</p>');
    expect(html('## Item\n\n###### Deep', { headingOffset: 1 })).toBe('<h3>Item</h3>\n<h6>Deep</h6>');
    // The offset is per call: a later call without one is not demoted.
    expect(html('## Item')).toBe('<h2>Item</h2>');
  });

  it('escapes text and code', () => {
    expect(html('a < b & c > d')).toBe('<p>a &lt; b &amp; c &gt; d</p>');
    expect(html('```\n<b>x</b>\n```')).toBe('<pre><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre>');
  });
});
