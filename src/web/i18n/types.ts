// The shape of a catalogue entry (src/web/i18n/en.ts explains the catalogues).

/** The forms of a counted phrase, by Intl.PluralRules category; `other` is the fallback. */
export interface Plural {
  one: string;
  two?: string;
  few?: string;
  other: string;
}

export type Message = string | Plural;
