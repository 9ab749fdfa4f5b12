// The analysers: what a word becomes in the index, in English and in the small Slovenian analyser.
import { describe, expect, it } from 'vitest';
import { analyse, analyseQuery, guessLanguage, queryLanguages } from '../../src/lib/search/analyse.ts';
import { foldDiacritics, slovenianTerm, stemSlovenian } from '../../src/lib/search/slovenian.ts';

const sl = (text: string) => analyse(text, 'sl');

describe('Slovenian analyser', () => {
  it('folds č, š, ž (and ć, đ) so words typed without them match', () => {
    expect(foldDiacritics('Čeprav šola, žaba, Ćiro, Đurđa')).toBe('ceprav sola, zaba, ciro, durda');
    expect(sl('šolah')).toEqual(sl('solah'));
    expect(sl('Občine')).toEqual(sl('obcine'));
  });

  it('gives the inflected forms of a noun one term', () => {
    const forms = ['podjetje', 'podjetja', 'podjetju', 'podjetjem', 'podjetij', 'podjetjih', 'podjetji'];
    expect(new Set(forms.map((w) => slovenianTerm(w)))).toEqual(new Set(['podjet']));
    expect(new Set(['inteligenca', 'inteligence', 'inteligenci', 'inteligenco'].map((w) => slovenianTerm(w)))).toEqual(new Set(['inteligenc']));
    expect(new Set(['rezultat', 'rezultati', 'rezultatov', 'rezultatih'].map((w) => slovenianTerm(w)))).toEqual(new Set(['rezultat']));
  });

  it('handles the fleeting e of -ec and -ek nouns', () => {
    expect(new Set(['uvajalec', 'uvajalca', 'uvajalcev', 'uvajalcem'].map((w) => slovenianTerm(w)))).toEqual(new Set(['uvajalc']));
    expect(new Set(['izdelek', 'izdelka', 'izdelki'].map((w) => slovenianTerm(w)))).toEqual(new Set(['izdelk']));
  });

  it('gives the forms of an adjective one term, and leaves words that end like an ending alone', () => {
    expect(new Set(['umetna', 'umetne', 'umetni', 'umetno', 'umetnega', 'umetnem', 'umetnih'].map((w) => slovenianTerm(w)))).toEqual(new Set(['umetn']));
    expect(new Set(['sistem', 'sistema', 'sistemu', 'sistemom', 'sistemi'].map((w) => slovenianTerm(w)))).toEqual(new Set(['sistem']));
    expect(stemSlovenian('model')).toBe('model');
  });

  it('drops function words and keeps short words and numbers as they are', () => {
    expect(sl('Podjetja v Sloveniji in na Hrvaškem, ki so 58 % uporabnikov UI')).toEqual(['podjet', 'sloveni', 'hrvask', '58', 'uporabnik', 'ui']);
  });
});

describe('English analyser', () => {
  it('stems with Porter, drops stop words and possessives, and folds accents', () => {
    expect(analyse("The CFO's view: measuring governance boards' decisions", 'en')).toEqual(['cfo', 'view', 'measur', 'govern', 'board', 'decis']);
    expect(analyse('café naïve', 'en')).toEqual(analyse('cafe naive', 'en'));
  });

  it('splits hyphenated words and keeps acronyms', () => {
    expect(analyse('human-in-the-loop RAG LLMOps', 'en')).toEqual(['human', 'loop', 'rag', 'llmop']);
  });
});

describe('queries', () => {
  it('reads a query in the language its function words give away, and in both otherwise', () => {
    expect(queryLanguages(['data', 'preparation', 'for', 'small', 'businesses'])).toEqual(['en']);
    expect(queryLanguages(['umetna', 'inteligenca', 'v', 'šolah'])).toEqual(['sl']);
    expect(queryLanguages(['mala', 'podjetja'])).toEqual(['en', 'sl']);
    // "a", "in", "to" are function words of both languages: no evidence either way.
    expect(queryLanguages(['cameras', 'catching', 'faulty', 'parts', 'in', 'a', 'factory'])).toEqual(['en', 'sl']);
    expect(queryLanguages(['writing', 'a', 'government', 'tender', 'for', 'a', 'language', 'model'])).toEqual(['en']);
    expect(queryLanguages(['zdravniki', 'in', 'samodejno', 'zapisovanje', 'obiskov'])).toEqual(['en', 'sl']);
    expect(queryLanguages(['strah', 'zaposlenih', 'pred', 'izgubo', 'službe'])).toEqual(['sl']);
    expect(analyseQuery('mala podjetja').map((w) => w.terms)).toEqual([['mala', 'mal'], ['podjetja', 'podjet']]);
    expect(analyseQuery('data for small businesses').flatMap((w) => w.terms)).toEqual(['data', 'small', 'busi']);
  });

  it('keeps a query of only function words searchable', () => {
    expect(analyseQuery('the who').map((w) => w.terms)).toEqual([['the'], ['who']]);
    expect(analyseQuery('!!!')).toEqual([]);
  });

  it('guesses the language of untagged text', () => {
    expect(guessLanguage('Shadow AI is the AI counterpart of shadow IT, and it is everywhere.')).toBe('en');
    expect(guessLanguage('Večina organizacij je po Aktu o umetni inteligenci uvajalcev, ne ponudnikov.')).toBe('sl');
  });
});
