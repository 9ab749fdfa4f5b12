// Public reads of the audit log: events, signed checkpoints, the verification key, and (beyond the spec)
// inclusion and consistency proofs, so anyone can verify the log without trusting the server.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute } from '../validation/route.ts';
import { queryInt, requiredInt } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import type { AuditLog } from './index.ts';

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
    entry: z.string().openapi({ description: 'The canonical JSON whose SHA-256(0x00 || entry) is the Merkle leaf' }),
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
    (c, { query }) =>
      c.json(audit().events({ afterSeq: query.after_seq, limit: query.limit, kind: query.kind, subjectType: query.subject_type, subjectId: query.subject_id }), 200, noStore),
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
    (c, { query }) => c.json(audit().checkpoints(query.after_seq, query.limit), 200, noStore),
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
    (c, { query }) => {
      const n = size();
      if (query.tree_size > n) throw new ApiError(400, `tree_size ${query.tree_size} exceeds the log size ${n}`);
      if (query.seq > query.tree_size) throw new ApiError(400, `seq ${query.seq} is not in a tree of size ${query.tree_size}`);
      return c.json(audit().inclusion(query.seq, query.tree_size), 200, noStore);
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
    (c, { query }) => {
      const n = size();
      if (query.to > n) throw new ApiError(400, `to ${query.to} exceeds the log size ${n}`);
      if (query.from > query.to) throw new ApiError(400, `from ${query.from} is larger than to ${query.to}`);
      return c.json(audit().consistency(query.from, query.to), 200, noStore);
    },
  );
}
