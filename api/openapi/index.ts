// /openapi.json: OpenAPI 3.1.0 generated from the routes' zod schemas (info.version 3.0) and completed from
// the operation catalogue (security, operationIds, descriptions, tags), built once.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { API_VERSION } from '../../src/lib/read/discovery/shared.ts';
import { completeDocument, type OpenApiDocument } from './document.ts';
import { staticExamples, type OperationExample } from './examples.ts';

/**
 * @example registerOpenApi(app, { title: config.siteName, serverUrl: config.baseUrl, examples: () => contentExamples(content()) })
 * @param opts.examples examples beside the static ones (the content reads', from the content served when the document is made)
 */
export function registerOpenApi(app: OpenAPIHono, opts: { title: string; serverUrl: string; examples?: () => Record<string, OperationExample> }) {
  let cached: string | undefined;
  app.get('/openapi.json', (c) => {
    cached ??= JSON.stringify(
      completeDocument(
        app.getOpenAPI31Document({
          openapi: '3.1.0',
          info: { title: opts.title, version: API_VERSION, description: 'Interface of the AI transformation knowledge base. See /api for a prose guide.' },
          servers: [{ url: opts.serverUrl }],
        }) as unknown as OpenApiDocument,
        opts.serverUrl,
        merge(staticExamples(opts.serverUrl), opts.examples?.() ?? {}),
      ),
    );
    return c.body(cached, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' });
  });
}

/** Both sets of examples; for an operation in both, each part (params, request, response) from either. */
function merge(a: Record<string, OperationExample>, b: Record<string, OperationExample>): Record<string, OperationExample> {
  const out = { ...a };
  for (const [key, ex] of Object.entries(b)) {
    const mine = a[key] ?? {};
    out[key] = { params: { ...mine.params, ...ex.params }, request: { ...mine.request, ...ex.request }, response: { ...mine.response, ...ex.response } };
  }
  return out;
}
