// OpenAPI component schemas of the OAuth endpoints.
import { z } from '@hono/zod-openapi';

export const OAuthErrorBody = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .openapi('OAuthError', { description: 'RFC 6749 §5.2 / RFC 7591 §3.2.2 error' });
