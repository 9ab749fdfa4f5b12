// RFC 8785 JSON Canonicalization Scheme (JCS) for audit entries: object keys sorted by their UTF-16 code
// units, no whitespace, strings and numbers serialised as ECMAScript's JSON.stringify does, so the same
// event always has the same bytes (and so the same Merkle leaf, SHA-256(0x00 || UTF-8 bytes)) whoever
// serialises it. Input must be I-JSON (RFC 7493), as JCS requires: no lone surrogates, no NaN or Infinity.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') {
    // JSON.stringify would escape a lone surrogate as \udXXX; JCS has no such string.
    if (!value.isWellFormed()) throw new TypeError('canonical JSON has no lone surrogates (RFC 8785 needs I-JSON)');
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object') {
    // A Date, Map or class instance has no JSON data model of its own here: refused rather than written as {}.
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new TypeError('canonical JSON encodes plain objects only');
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${canonicalJson(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
}
