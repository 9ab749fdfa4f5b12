// The message catalogues (src/web/i18n/en.ts, sl.ts): the same keys, the same placeholders and plural
// forms for every key, and t/tn/tHtml as pages use them.
import { describe, expect, it } from 'vitest';
import { en } from '../../src/web/i18n/en.ts';
import { sl } from '../../src/web/i18n/sl.ts';
import { clientMessagesJson, t, tHtml, tn } from '../../src/web/i18n.ts';
import { html } from '../../src/web/html.ts';

const placeholders = (m: string | object) => [...new Set(JSON.stringify(m).match(/\{\w+\}/g) ?? [])].sort();

describe('the catalogues', () => {
  it('have the same keys in English and Slovenian', () => {
    expect(Object.keys(sl).sort()).toEqual(Object.keys(en).sort());
  });

  it('say the same things: the same placeholders, plurals where English counts, every Slovenian form', () => {
    for (const [key, message] of Object.entries(en)) {
      const other = sl[key as keyof typeof sl];
      expect(typeof other, key).toBe(typeof message);
      expect(placeholders(other), key).toEqual(placeholders(message));
      if (typeof message === 'object') {
        expect(Object.keys(message).sort(), key).toEqual(['one', 'other']);
        expect(Object.keys(other).sort(), key).toEqual(['few', 'one', 'other', 'two']);
      }
      for (const text of typeof other === 'string' ? [other, message as string] : [...Object.values(other), ...Object.values(message)]) expect(text.trim(), key).not.toBe('');
    }
  });
});

describe('t, tn and tHtml', () => {
  it('fill placeholders and pick the plural form the language uses', () => {
    expect(t('sl', 'item.watch', { host: 'YouTube' })).toBe('Oglejte si posnetek na YouTube');
    expect([1, 2, 3, 5, 101].map((n) => tn('sl', 'channel.videoCount', n))).toEqual(['1 posnetek', '2 posnetka', '3 posnetki', '5 posnetkov', '101 posnetek']);
    expect([1, 2].map((n) => tn('en', 'channel.videoCount', n))).toEqual(['1 video', '2 videos']);
  });

  it('puts markup where the placeholder is', () => {
    const link = html`<a href="${'/api/comments?x=1&y=2'}">/api/comments</a>`;
    expect(tHtml('sl', 'comments.noscript', { link }).value).toBe('Komentarji potrebujejo JavaScript. Njihovi podatki so na <a href="/api/comments?x=1&amp;y=2">/api/comments</a>.');
  });

  it('gives the page\'s scripts their strings, and only theirs, as JSON that cannot end the script element', () => {
    const json = clientMessagesJson('sl', ['/assets/comments.js', '/assets/who.js'])!;
    expect(JSON.parse(json)).toMatchObject({ 'comments.empty': 'Komentarjev še ni.', 'reaction.like': 'Všeč mi je', 'who.signOut': 'Odjava' });
    expect(JSON.parse(json)).not.toHaveProperty('nav.videos');
    expect(JSON.parse(json)).not.toHaveProperty('results.failed');
    expect(json).not.toContain('<');
    expect(clientMessagesJson('en', ['/assets/graph.js'])).toBeNull();
  });
});
