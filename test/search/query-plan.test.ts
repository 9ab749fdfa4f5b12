// The planner's bounded vocabulary lookups: the automaton walk finds exactly what lunr's fuzzy token set
// found for real words (so ranking is unchanged), completions come shortest first, and the work of one
// lookup is bounded whatever the word.
import lunr from 'lunr';
import { describe, expect, it } from 'vitest';
import { completionsInAutomaton, MAX_EXPANDED_LENGTH, MAX_EXPANDED_WORDS, nearInAutomaton, planQuery, type Vocabulary } from '../../src/lib/search/query-plan.ts';

const TERMS = [
  'governance', 'govern', 'government', 'goverance', 'evaluation', 'evaluate', 'evalu', 'harness', 'harnesses',
  'observ', 'observability', 'agent', 'agents', 'agenda', 'agentic', 'podjet', 'podjetj', 'uvajalc', 'uvajan',
  'pravn', 'pravna', 'pravo', 'prav', 'process', 'proces', 'procurement', 'prompt', 'promptly', 'aaa', 'aaaa',
  'aaaaab', 'baaaa', 'stroski', 'strosk', 'shadow', 'shadows', 'ai', 'act',
].sort();
const index = lunr(function () {
  this.ref('id');
  this.field('t');
  // No pipeline: the terms go in as they are.
  this.pipeline.reset();
  this.searchPipeline.reset();
  TERMS.forEach((t, i) => this.add({ id: String(i), t }));
});
const root = (index as unknown as { tokenSet: Parameters<typeof nearInAutomaton>[0] }).tokenSet;
const lunrNear = (term: string, edits: number) =>
  (lunr.TokenSet as unknown as { fromFuzzyString(t: string, e: number): lunr.TokenSet }).fromFuzzyString(term, edits);

describe('nearInAutomaton', () => {
  it("finds the same terms as lunr's fuzzy token set, for words with and without typos", () => {
    const probes = [...TERMS, 'goverment', 'evaluaton', 'harnes', 'agnet', 'podjetja', 'pravnna', 'procss', 'shadwo', 'xyzzy', 'aaaaa'];
    for (const term of probes) {
      for (const edits of [1, 2]) {
        const ours = nearInAutomaton(root, term, edits).sort();
        const theirs = (index as unknown as { tokenSet: lunr.TokenSet }).tokenSet
          .intersect(lunrNear(term, edits))
          .toArray()
          .filter((t) => t[0] === term[0])
          .sort();
        expect(ours, `${term} within ${edits}`).toEqual(theirs);
      }
    }
  });

  it('stops after the visit budget, and a long word costs next to nothing', () => {
    expect(nearInAutomaton(root, 'agent', 2, 3).length).toBeLessThanOrEqual(3);
    const t = performance.now();
    expect(nearInAutomaton(root, 'a'.repeat(5000), 2)).toEqual([]);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

describe('completionsInAutomaton', () => {
  it('gives the shortest completions first, then alphabetical, at most the limit', () => {
    expect(completionsInAutomaton(root, 'prav')).toEqual(['prav', 'pravn', 'pravo', 'pravna']);
    expect(completionsInAutomaton(root, 'pro', 3)).toEqual(['proces', 'prompt', 'process']);
    expect(completionsInAutomaton(root, 'zzz')).toEqual([]);
  });
});

describe('planQuery', () => {
  /** A vocabulary that counts its lookups. */
  function counting(): Vocabulary & { lookups: number } {
    const v = {
      lookups: 0,
      has: (t: string) => TERMS.includes(t),
      near: (t: string, e: number) => (v.lookups++, nearInAutomaton(root, t, e)),
      startingWith: (p: string) => (v.lookups++, completionsInAutomaton(root, p)),
    };
    return v;
  }
  const word = (w: string) => ({ word: w, terms: [w] });

  it('expands an unknown word into typo and prefix matches with lower boosts', () => {
    const clauses = planQuery([word('goverance'), word('agnet')], counting());
    expect(clauses).toContainEqual({ term: 'goverance', boost: 1 });
    expect(clauses).toContainEqual({ term: 'agent', boost: 0.5 });
  });

  it(`expands words of at most ${MAX_EXPANDED_LENGTH} letters, and at most ${MAX_EXPANDED_WORDS} words of a query`, () => {
    const v = counting();
    expect(planQuery([word('g'.repeat(MAX_EXPANDED_LENGTH + 1))], v)).toEqual([]);
    expect(v.lookups).toBe(0);
    const many = Array.from({ length: 30 }, (_, i) => word(`qx${String.fromCharCode(97 + (i % 26))}zzz`));
    planQuery(many, v);
    // Each expanded word costs a typo lookup and a prefix lookup.
    expect(v.lookups).toBe(MAX_EXPANDED_WORDS * 2);
  });
});
