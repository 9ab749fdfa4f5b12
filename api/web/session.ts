// POST /signout: the header's sign-out button. Ends the session through the API and passes its cookie
// deletion on to the browser.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CallApi } from './call.ts';

export function registerSessionPages(app: OpenAPIHono, callApi: CallApi): void {
  app.post('/signout', async (c) => {
    const r = await callApi(c, 'POST', '/api/auth/logout');
    const headers = new Headers({ Location: '/', 'Cache-Control': 'no-store' });
    for (const cookie of r.headers.getSetCookie()) headers.append('Set-Cookie', cookie);
    return new Response(null, { status: 303, headers });
  });
}
