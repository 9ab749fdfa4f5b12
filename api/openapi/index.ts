// /openapi.json: OpenAPI 3.1.0 generated from the routes' zod schemas (info.version 3.0) and completed from
// the operation catalogue (security, operationIds, descriptions, tags), built once.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { API_VERSION } from '../../src/lib/read/discovery.ts';
import { completeDocument, type OpenApiDocument } from './document.ts';

/** @example registerOpenApi(app, { title: config.siteName, serverUrl: config.baseUrl }) */
export function registerOpenApi(app: OpenAPIHono, opts: { title: string; serverUrl: string }) {
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
      ),
    );
    return c.body(cached, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' });
  });
}
