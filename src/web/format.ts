// Dates, languages and small text helpers shared by the prerendered pages and the server's pages.
import type { Lang } from '../lib/content/schema.ts';

export const LANG_NAME: Record<Lang, string> = { en: 'English', sl: 'Slovenščina' };
export const OG_LOCALE: Record<Lang, string> = { en: 'en_GB', sl: 'sl_SI' };

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Calendar dates already formatted, by locale, then date. Intl's format costs ~15 µs a call, and a full
 * build formats the same few thousand days again and again (every video card shows its date): ~0.8 s of
 * each render process's ~20 s at 10k videos. Bounded: a locale's map starts again past DAYS_KEPT dates;
 * timestamps never enter it.
 */
const formattedDays = new Map<string, Map<string, string>>();
const DAYS_KEPT = 10_000;
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date (YYYY-MM-DD) or an ISO timestamp as people read it, in the page's language. */
export function formatDate(iso: string, lang: string = 'en'): string {
  const locale = lang === 'sl' ? 'sl-SI' : 'en-GB';
  let days = formattedDays.get(locale);
  if (!days) formattedDays.set(locale, (days = new Map()));
  // Only calendar dates are kept: one found was checked as it went in.
  let text = days.get(iso);
  if (text !== undefined) return text;
  text = formatIn(locale, iso);
  if (CALENDAR_DATE.test(iso)) {
    if (days.size >= DAYS_KEPT) days.clear();
    days.set(iso, text);
  }
  return text;
}

function formatIn(locale: string, iso: string): string {
  let f = dateFormats.get(locale);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    dateFormats.set(locale, f);
  }
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(d.getTime()) ? iso : f.format(d);
}

/** A timestamp to the minute, in UTC, for account pages (keys, notifications): unambiguous for everyone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** Cuts a text at a word boundary for descriptions and cards. */
export function truncate(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max * 0.6)).replace(/[\s,;:.]+$/, '')}…`;
}
