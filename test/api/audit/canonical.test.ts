// The leaf bytes, exactly (issue 15, item 12): an event's `entry` is RFC 8785 (JCS) JSON, and its Merkle
// leaf is SHA-256(0x00 || the UTF-8 bytes of that string), as docs/audit-log.md says.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/lib/data/audit/canonical.ts';
import { leafHash } from '../../../src/lib/data/audit/merkle.ts';

describe('audit entries are RFC 8785 (JCS) JSON', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = JSON.parse('{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}');
    // (Object.values would list "1" first: JavaScript orders integer-like keys before the others.)
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('serialises numbers, literals and strings as RFC 8785 §3.2.2’s example', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('refuses what JCS cannot represent instead of writing something else', () => {
    expect(() => canonicalJson({ s: 'lone \ud800 surrogate' })).toThrow(/lone surrogates/);
    expect(() => canonicalJson({ ['\udc00']: 1 })).toThrow(/lone surrogates/);
    expect(() => canonicalJson({ at: new Date(0) })).toThrow(/plain objects/);
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/NaN/);
  });

  it('has its leaf hash over the UTF-8 bytes, as docs/audit-log.md states', () => {
    const entry = canonicalJson({ seq: 1, data: { note: 'ünïcødé ✓ 😀' } });
    const expected = createHash('sha256').update(Buffer.concat([Buffer.from([0x00]), Buffer.from(entry, 'utf8')])).digest();
    expect(leafHash(entry).equals(expected)).toBe(true);
    const doc = fs.readFileSync(path.resolve('docs/audit-log.md'), 'utf8');
    expect(doc).toContain('SHA-256(0x00 ‖ UTF-8 bytes of the served `entry` string)');
    expect(doc).toMatch(/RFC 8785 \(JCS\)/);
  });
});
