// Public reads of the audit log: events, signed checkpoints, the verification key, and (beyond the spec)
// inclusion and consistency proofs, so anyone can verify the log without trusting the server; and the
// same log in the C2SP tlog-tiles layout (checkpoint, hash tiles, entry bundles) that tiles clients read.
import { gzipSync } from 'node:zlib';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { addRoute, RequestValidationError } from '../validation/route.ts';
import { queryInt, requiredInt } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import type { AuditLog } from '../../src/lib/data/audit/index.ts';
import { parseTilePath } from '../../src/lib/data/audit/tiles.ts';

const b64 = z.string().openapi({ description: 'base64' });

const AuditEvent = z
  .object({
    seq: z.number().int(),
    kind: z.string(),
    subject_type: z.string(),
    subject_id: z.string(),
    actor: z.string().openapi({ description: 'An opaque pseudonym of the user, or system / pipeline' }),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()),
    entry: z.string().openapi({ description: 'The event as RFC 8785 (JCS) canonical JSON; its Merkle leaf hash is SHA-256(0x00 || UTF-8 bytes of entry)' }),
    leaf_hash: b64,
  })
  .openapi('AuditEvent');
const AuditPage = z
  .object({ items: z.array(AuditEvent), next_after_seq: z.number().int().nullable(), tree_size: z.number().int() })
  .openapi('AuditPage');
const AuditCheckpoint = z
  .object({ tree_size: z.number().int(), root_hash: b64, created_at: z.string(), note: z.string().openapi({ description: 'C2SP signed note with a tlog-checkpoint body' }) })
  .openapi('AuditCheckpoint');
const AuditCheckpointPage = z
  .object({ items: z.array(AuditCheckpoint), next_after_seq: z.number().int().nullable() })
  .openapi('AuditCheckpointPage');
const AuditPubkeyOut = z
  .object({
    algorithm: z.literal('Ed25519'),
    origin: z.string(),
    key_name: z.string(),
    key_id: z.string(),
    verifier_key: z.string().openapi({ description: 'signed-note verifier key: <name>+<hex key id>+<base64(0x01 || key)>' }),
    public_key: b64,
    public_key_pem: z.string(),
    checkpoint_format: z.string(),
    note_format: z.string(),
  })
  .openapi('AuditPubkeyOut');
const InclusionProof = z
  .object({ seq: z.number().int(), leaf_index: z.number().int(), tree_size: z.number().int(), leaf_hash: b64, root_hash: b64, proof: z.array(b64) })
  .openapi('AuditInclusionProof');
const ConsistencyProof = z
  .object({ from: z.number().int(), to: z.number().int(), from_root: b64, to_root: b64, proof: z.array(b64) })
  .openapi('AuditConsistencyProof');

const errors = { 400: json(ErrorDetail, 'Outside the log'), 422: json(HTTPValidationError, 'Validation error') };

export function registerAuditRoutes(app: OpenAPIHono, audit: () => AuditLog) {
  const noStore = { 'Cache-Control': 'no-store' };
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/audit',
      tags: ['audit'],
      summary: 'Audit events in ascending seq order',
      request: {
        query: z.object({
          after_seq: queryInt(0, undefined, 0, 'Only events with a larger seq.'),
          limit: queryInt(1, 200, 50, 'Page size, 1..200.'),
          kind: z.string().max(100).optional(),
          subject_type: z.string().max(100).optional(),
          subject_id: z.string().max(200).optional(),
        }),
      },
      responses: { 200: json(AuditPage, 'A page of events'), 422: errors[422] },
    }),
    async (c, { query }) =>
      c.json(await audit().events({ afterSeq: query.after_seq, limit: query.limit, kind: query.kind, subjectType: query.subject_type, subjectId: query.subject_id }), 200, noStore),
  );
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/audit/checkpoints',
      tags: ['audit'],
      summary: 'Signed checkpoints in ascending tree size',
      request: {
        query: z.object({
          after_seq: queryInt(0, undefined, 0, 'Only checkpoints of a larger tree size.'),
          limit: queryInt(1, 100, 20, 'Page size, 1..100.'),
        }),
      },
      responses: { 200: json(AuditCheckpointPage, 'A page of checkpoints'), 422: errors[422] },
    }),
    async (c, { query }) => c.json(await audit().checkpoints(query.after_seq, query.limit), 200, noStore),
  );
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/audit/pubkey', tags: ['audit'], summary: 'The checkpoint verification key', responses: { 200: json(AuditPubkeyOut, 'Key') } }),
    (c) => c.json(audit().publicKey()),
  );

  const size = () => audit().size();
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/audit/proof/inclusion',
      tags: ['audit'],
      summary: 'RFC 9162 inclusion proof of one event in a tree size',
      request: { query: z.object({ seq: requiredInt(1, undefined, 'The event.'), tree_size: requiredInt(1, undefined, 'The tree size, e.g. of a checkpoint.') }) },
      responses: { 200: json(InclusionProof, 'Proof'), ...errors },
    }),
    async (c, { query }) => {
      const n = await size();
      if (query.tree_size > n) throw new ApiError(400, `tree_size ${query.tree_size} exceeds the log size ${n}`);
      if (query.seq > query.tree_size) throw new ApiError(400, `seq ${query.seq} is not in a tree of size ${query.tree_size}`);
      return c.json(await audit().inclusion(query.seq, query.tree_size), 200, noStore);
    },
  );
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/audit/proof/consistency',
      tags: ['audit'],
      summary: 'RFC 9162 consistency proof between two tree sizes',
      request: { query: z.object({ from: requiredInt(1, undefined, 'The older tree size.'), to: requiredInt(1, undefined, 'The newer tree size.') }) },
      responses: { 200: json(ConsistencyProof, 'Proof'), ...errors },
    }),
    async (c, { query }) => {
      const n = await size();
      if (query.to > n) throw new ApiError(400, `to ${query.to} exceeds the log size ${n}`);
      if (query.from > query.to) throw new ApiError(400, `from ${query.from} is larger than to ${query.to}`);
      return c.json(await audit().consistency(query.from, query.to), 200, noStore);
    },
  );
  registerTileRoutes(app, audit);
}

const TILES = 'https://c2sp.org/tlog-tiles';
/** Tiles and entry bundles never change once the log holds them: any cache may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const binary = (description: string) => ({ description, content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } });
const tileIndex = z.string().openapi({
  description: 'Tile index as zero-padded 3-digit path elements, all but the last prefixed with x (1234067: x001/x234/067), optionally followed by .p/<W> for a partial tile of W (1..255) entries. The value spans several path segments.',
  example: '000',
});
const tileErrors = {
  404: json(ErrorDetail, 'The log does not hold this tile (yet)'),
  422: json(HTTPValidationError, 'Not a tile path'),
};

/** Whether Accept-Encoding admits gzip: by name, else by `*`; a q of 0 refuses it. */
function acceptsGzip(header: string | undefined): boolean {
  const q: Record<string, number> = {};
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';');
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q[coding.trim()] = weight ? Number(weight.slice(2)) || 0 : 1;
  }
  return (q.gzip ?? q['*'] ?? 0) > 0;
}

/**
 * C2SP tlog-tiles under the prefix /api/audit: `checkpoint` (mutable, cached a few seconds), and the
 * immutable `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`. The tile routes match several path
 * segments, which an OpenAPI path parameter cannot: they are documented here and served by one wildcard.
 */
function registerTileRoutes(app: OpenAPIHono, audit: () => AuditLog) {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/audit/checkpoint',
      tags: ['audit'],
      operationId: 'getAuditCheckpoint',
      summary: 'The latest signed checkpoint (C2SP tlog-tiles)',
      description: `The newest checkpoint as a C2SP signed note (${TILES}): origin, tree size and base64 root hash, then the Ed25519 signature line. Before the first event, a signed checkpoint of the empty tree.`,
      responses: { 200: { description: 'Signed note', content: { 'text/plain': { schema: z.string() } } } },
    }),
    async (c) => c.body(await audit().latestCheckpointNote(), 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=5' }),
  );
  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'get',
      path: '/api/audit/tile/{L}/{N}',
      tags: ['audit'],
      operationId: 'getAuditTile',
      summary: 'A Merkle tree hash tile (C2SP tlog-tiles)',
      description: `Up to 256 consecutive 32-byte Merkle tree hashes at tree level 8·L (${TILES}); a full tile is 8,192 bytes. Immutable: cached for a year.`,
      request: { params: z.object({ L: z.string().openapi({ description: 'Tile level, 0..63', example: '0' }), N: tileIndex }) },
      responses: { 200: binary('The concatenated hashes'), ...tileErrors },
    }),
  );
  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'get',
      path: '/api/audit/tile/entries/{N}',
      tags: ['audit'],
      operationId: 'getAuditEntryBundle',
      summary: 'An entry bundle (C2SP tlog-tiles)',
      description: `The entries of up to 256 consecutive events, each the event's JCS JSON in UTF-8 after its length as a big-endian uint16 (${TILES}); SHA-256(0x00 || entry) is the matching hash of the level-0 tile. Immutable; gzip when accepted.`,
      request: { params: z.object({ N: tileIndex }) },
      responses: { 200: binary('The entry bundle'), ...tileErrors },
    }),
  );
  const PREFIX = '/api/audit/tile/';
  app.get(`${PREFIX}*`, async (c: Context) => {
    const parsed = parseTilePath(c.req.path.slice(PREFIX.length));
    if (parsed && 'problem' in parsed) {
      const { param, ...p } = parsed.problem;
      throw new RequestValidationError([{ ...p, loc: ['path', param] }]);
    }
    const body = parsed && (await audit().tile(parsed.tile));
    // A tile the log does not hold yet will exist later: the 404 must not be cached.
    if (!body) throw new ApiError(404, 'Tile not found', { 'Cache-Control': 'no-store' });
    const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream', 'Cache-Control': IMMUTABLE };
    if (parsed.tile.level !== 'entries') return c.body(new Uint8Array(body), 200, headers);
    // Entry bundles are JSON text and compress well; the hash tiles are random bytes and do not.
    headers.Vary = 'Accept-Encoding';
    if (!acceptsGzip(c.req.header('accept-encoding'))) return c.body(new Uint8Array(body), 200, headers);
    return c.body(new Uint8Array(gzipSync(body)), 200, { ...headers, 'Content-Encoding': 'gzip' });
  });
}
