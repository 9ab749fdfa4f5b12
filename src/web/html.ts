// HTML for the website's server-rendered parts: a tagged template that escapes every interpolated value
// unless it is already SafeHtml, so a template cannot forget to escape what a person or a device wrote.
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Markup that is already safe: built by `html` or by the Markdown renderer (which sanitises). */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

/** Trusted markup as is. Only for strings this code built or sanitised itself. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function piece(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(piece).join('');
  return esc(String(v));
}

/**
 * @example html`<a href="${url}">${title}</a>` // url and title are escaped
 * @example html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>` // arrays join; nested html stays
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}
