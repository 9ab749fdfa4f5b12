// The C2SP tlog-tiles layout (https://c2sp.org/tlog-tiles): tile coordinates, their paths and the bytes of
// an entry bundle. Pure; api/audit/index.ts reads the stored hashes and entries a tile holds.
//
// A hash tile at level L, index N holds up to 256 consecutive Merkle tree hashes at tree level 8·L: hash i
// is MTH(D[(N·256 + i)·256^L : (N·256 + i + 1)·256^L]), i.e. our stored subtree hash (8·L, N·256 + i).
// A full tile is 256 hashes (8,192 bytes); a partial one, `.p/<W>`, the first W (1..255) of them.
// The entry bundle N holds the entries of leaves N·256 .. N·256 + 255 (seq = leaf index + 1), each
// prefixed with its length as a big-endian uint16.

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 1 << TILE_HEIGHT;
/** Tiles beyond this index lie beyond any log this service could hold (and beyond exact doubles). */
const MAX_TILE_INDEX = 2 ** 45;

export interface TileCoord {
  /** 0..63 for hash tiles; 'entries' for entry bundles. */
  level: number | 'entries';
  index: number;
  /** 1..256; 256 is a full tile. */
  width: number;
}

/** N as zero-padded 3-digit path elements, all but the last prefixed with x: 1234067 → x001/x234/067. */
export function encodeTileIndex(n: number): string {
  let out = String(n % 1000).padStart(3, '0');
  for (let rest = Math.floor(n / 1000); rest > 0; rest = Math.floor(rest / 1000)) out = `x${String(rest % 1000).padStart(3, '0')}/${out}`;
  return out;
}

/** The tile's path below the log prefix, e.g. `tile/0/x001/234.p/17` or `tile/entries/005`. */
export function tilePath(t: TileCoord): string {
  return `tile/${t.level}/${encodeTileIndex(t.index)}${t.width < TILE_WIDTH ? `.p/${t.width}` : ''}`;
}

/** How wide the rightmost tile at `level` is in a tree of `size` leaves: floor(size / 256^level) mod 256. */
export function partialTileWidth(level: number, size: number): number {
  return Math.floor(size / TILE_WIDTH ** level) % TILE_WIDTH;
}

export type TilePathProblem = { param: 'L' | 'N' | 'W'; type: string; msg: string; input: string; ctx?: Record<string, unknown> };

const INDEX = /^(?:x\d{3}\/)*\d{3}$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;

/**
 * Parses what follows `tile/` in a tile URL: `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`. Only the one
 * canonical spelling of each tile is accepted, so each has one URL (and one cache entry). Returns null for
 * an index beyond any log (a well-formed path of a tile that cannot exist).
 * @example parseTilePath('0/x001/234.p/17') // { tile: { level: 0, index: 1234, width: 17 } }
 */
export function parseTilePath(rest: string): { tile: TileCoord } | { problem: TilePathProblem } | null {
  const slash = rest.indexOf('/');
  const levelPart = slash < 0 ? rest : rest.slice(0, slash);
  let after = slash < 0 ? '' : rest.slice(slash + 1);
  let level: TileCoord['level'];
  if (levelPart === 'entries') level = 'entries';
  else if (!/^\d+$/.test(levelPart)) return { problem: { param: 'L', type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', input: levelPart } };
  else if (!DECIMAL.test(levelPart)) return { problem: { param: 'L', type: 'string_pattern_mismatch', msg: 'Value error, L is a decimal without leading zeroes', input: levelPart } };
  else if (Number(levelPart) > 63) return { problem: { param: 'L', type: 'less_than_equal', msg: 'Input should be less than or equal to 63', input: levelPart, ctx: { le: 63 } } };
  else level = Number(levelPart);

  let width = TILE_WIDTH;
  const partial = /\.p\/([^/]*)$/.exec(after);
  if (partial) {
    const w = partial[1];
    after = after.slice(0, partial.index);
    if (!/^\d+$/.test(w)) return { problem: { param: 'W', type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', input: w } };
    if (!DECIMAL.test(w)) return { problem: { param: 'W', type: 'string_pattern_mismatch', msg: 'Value error, W is a decimal without leading zeroes', input: w } };
    const n = Number(w);
    if (n < 1) return { problem: { param: 'W', type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1', input: w, ctx: { ge: 1 } } };
    if (n > TILE_WIDTH - 1) return { problem: { param: 'W', type: 'less_than_equal', msg: `Input should be less than or equal to ${TILE_WIDTH - 1}`, input: w, ctx: { le: TILE_WIDTH - 1 } } };
    width = n;
  }
  // Canonical: 3-digit elements, x on all but the last, and no leading x000 (Go's tlog writes none).
  if (!INDEX.test(after) || after.startsWith('x000/')) {
    return {
      problem: { param: 'N', type: 'value_error', msg: 'Value error, N is zero-padded 3-digit path elements, all but the last starting with x, e.g. x001/x234/067 for 1234067', input: after },
    };
  }
  const elements = after.split('/');
  if (elements.length > 6) return null;
  const index = elements.reduce((n, e) => n * 1000 + Number(e.replace('x', '')), 0);
  if (index > MAX_TILE_INDEX) return null;
  return { tile: { level, index, width } };
}

/** An entry bundle: each entry's UTF-8 bytes after their length as a big-endian uint16. */
export function entryBundle(entries: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const bytes = Buffer.from(e, 'utf8');
    if (bytes.length > 0xffff) throw new RangeError('an entry longer than 65535 bytes does not fit an entry bundle');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(bytes.length);
    parts.push(len, bytes);
  }
  return Buffer.concat(parts);
}
