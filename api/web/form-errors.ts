// A form's refusal on the server's pages: the API's error answer as sentences (public/assets/sentences.js),
// each under the field it concerns and listed, linked to its field, in an alert at the top. The page is
// rendered again with what the person typed, so nothing is lost and no JSON or pattern is ever shown.
import { html, raw, type SafeHtml } from '../../src/web/html.ts';
import { sentences, type FieldWords } from '../../public/assets/sentences.js';
import type { ApiAnswer } from './call.ts';

/** A field of a page's form: how sentences name it, and the id of its input on the page. */
export interface FormField extends FieldWords {
  id: string;
}
/** A form's fields by the API's name for them (a 422's loc[1]). */
export type FormFields = Record<string, FormField>;

export interface FormProblem {
  /** A sentence per field, by the API's field name. */
  fields: Record<string, string>;
  /** What concerns no field (a conflict, a rate limit). */
  general: string[];
}

/**
 * The API's refusal of a form, in sentences by field.
 * @param fieldOf the field a refusal with a plain detail concerns, by status (a 409 "handle taken": handle)
 */
export function formProblem(a: ApiAnswer, fields: FormFields, fieldOf: Record<number, string> = {}): FormProblem {
  return sentences(a.status, a.body, fields, fieldOf);
}

/** A refusal that concerns no field: one general sentence. */
export function generalProblem(text: string): FormProblem {
  return { fields: {}, general: [text] };
}

/** The alert at the top of the page: what did not happen, and each problem (a link to its field). */
export function problemSummary(what: string, p: FormProblem | undefined, fields: FormFields): SafeHtml {
  if (!p) return html``;
  const byField = Object.entries(p.fields).map(([k, text]) => html`<li><a href="#${fields[k]?.id ?? ''}">${text}</a></li>`);
  const items = [...byField, ...p.general.map((text) => html`<li>${text}</li>`)];
  if (items.length === 1 && byField.length === 0) return html`<p class="error-summary" role="alert">${what} ${p.general[0]}</p>`;
  return html`<div class="error-summary" role="alert"><p>${what}</p><ul>${items}</ul></div>`;
}

/**
 * What an input carries when its field has a problem: aria-invalid and the sentence's id (with the help
 * text's id, `helpId`, when it has one) in aria-describedby.
 */
export function fieldAttrs(field: FormField, p: FormProblem | undefined, key: string, helpId?: string): SafeHtml {
  const bad = p?.fields[key];
  const described = [bad ? `${field.id}-error` : '', helpId ?? ''].filter(Boolean).join(' ');
  return html`${bad ? raw(' aria-invalid="true"') : ''}${described ? html` aria-describedby="${described}"` : ''}`;
}

/** The sentence under a field, or nothing. */
export function fieldNote(field: FormField, p: FormProblem | undefined, key: string): SafeHtml {
  const bad = p?.fields[key];
  return bad ? html`<p class="field-error" id="${field.id}-error">${bad}</p>` : html``;
}
