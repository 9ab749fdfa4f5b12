import { describe, expect, it } from 'vitest';
import { parseModelfile, ModelfileError } from '../../src/lib/personas/modelfile.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { fixtureContent } from '../helpers/content.ts';

describe('parseModelfile', () => {
  it('reads FROM, typed PARAMETERs, repeated stop, and a triple-quoted SYSTEM', () => {
    const m = parseModelfile(`# a comment
FROM llama3.1:8b
parameter temperature 0.3
PARAMETER num_ctx 8192
PARAMETER stop "<|end|>"
PARAMETER stop "User:"
SYSTEM """
You are careful.
Cite passages as [n].
"""
MESSAGE user Hello there
`);
    expect(m.from).toBe('llama3.1:8b');
    expect(m.parameters).toEqual({ temperature: 0.3, num_ctx: 8192, stop: ['<|end|>', 'User:'] });
    expect(m.system).toBe('You are careful.\nCite passages as [n].');
    expect(m.messages).toEqual([{ role: 'user', content: 'Hello there' }]);
  });

  it('reads a one-line SYSTEM and refuses broken files', () => {
    expect(parseModelfile('FROM x\nSYSTEM Be brief.').system).toBe('Be brief.');
    expect(parseModelfile('FROM x\nSYSTEM """inline"""').system).toBe('inline');
    expect(() => parseModelfile('FROM x\nSYSTEM """never closed')).toThrow(ModelfileError);
    expect(() => parseModelfile('FROM x\nPARAMETER temperature warm')).toThrow(/must be a number/);
  });

  it('parses every modelfile of the sample personas', () => {
    for (const p of loadSnapshot(fixtureContent()).personas) {
      for (const [key, text] of p.modelfiles) {
        const m = parseModelfile(text);
        expect(m.from, key).toBeTruthy();
        expect(m.system!.length, key).toBeGreaterThan(100);
        expect(typeof m.parameters.temperature, key).toBe('number');
      }
    }
  });
});
