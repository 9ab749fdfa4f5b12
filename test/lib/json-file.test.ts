// Large JSON state files in ASCII (src/lib/json-file.ts): what is written is ASCII whatever the text, and
// reads back as exactly the value written; a JSON file in UTF-8 (written before, or by anyone else) still
// reads right.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import { afterAll, describe, expect, it } from 'vitest';
import { asciiJson, objectPieces, readJsonFile, stringifyAscii, writeJsonPieces } from '../../src/lib/json-file.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-json-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Strings a knowledge base in English and Slovenian holds, and the awkward ones JSON must carry. */
const value = {
  sl: 'Umetna inteligenca v podjetju: čiščenje, šola, žaga — „narekovaji“',
  'ključ': ['é', 'ß', '中文', '🚀 rocket', 'a\u2028b\u2029c', 'tab\tquote"back\\slash', '\u0000\u001f\u007f\u0080\u00ff'],
  lone: 'x\ud800y',
  n: [1, -0.5, 1e21, null, true],
};

describe('ASCII JSON', () => {
  it('writes any text in ASCII, and reads back the same value', () => {
    const text = stringifyAscii(value);
    expect(/^[\x00-\x7f]*$/.test(text)).toBe(true);
    expect(text).toContain('\\u010d'); // č
    expect(text).toContain('\\ud83d\\ude80'); // 🚀, as its two UTF-16 units
    expect(JSON.parse(text)).toEqual(value);
    // A text that is ASCII already is returned as it is.
    const plain = JSON.stringify({ a: 'plain' });
    expect(asciiJson(plain)).toBe(plain);

    const file = path.join(dir, 'ascii.json');
    fs.writeFileSync(file, text);
    expect(isAscii(fs.readFileSync(file))).toBe(true);
    expect(readJsonFile(file)).toEqual(value);
  });

  it('reads a JSON file in UTF-8 as UTF-8', () => {
    const file = path.join(dir, 'utf8.json');
    fs.writeFileSync(file, JSON.stringify(value));
    expect(isAscii(fs.readFileSync(file))).toBe(false);
    expect(readJsonFile(file)).toEqual(value);
  });

  it('writes a document given in pieces, across its write batches, as one ASCII JSON text', () => {
    const file = path.join(dir, 'pieces.json');
    // ~3 MB: several batches of ~1 MB, with non-ASCII pieces on both sides of their edges.
    const items = Array.from({ length: 3000 }, (_, i) => ({ i, text: `${i % 7 ? 'plain' : 'čšž 🚀'} ${'x'.repeat(1000)}` }));
    const fd = fs.openSync(file, 'w');
    try {
      writeJsonPieces(fd, ['{"items":[', ...items.map((it, i) => `${i ? ',' : ''}${JSON.stringify(it)}`), ']}']);
    } finally {
      fs.closeSync(fd);
    }
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBeGreaterThan(3_000_000);
    expect(isAscii(bytes)).toBe(true);
    expect(readJsonFile(file)).toEqual({ items });
  });

  it('joins an object from its members’ JSON, nested and empty objects too', () => {
    const join = (members: Parameters<typeof objectPieces>[0]) => JSON.parse([...objectPieces(members)].join(''));
    expect(join([])).toEqual({});
    expect(join([['a', '1'], ['ž', JSON.stringify('č')], ['inner', objectPieces([['x', '[1,2]'], ['y', objectPieces([])]])]])).toEqual({ a: 1, ž: 'č', inner: { x: [1, 2], y: {} } });
  });
});
