// Signed-in callers for tests that are about something else than signing in. (The sign-in itself is
// tested end to end through the embedded OpenID provider in test/api/auth/.)
import type { TestServer } from './server.ts';

export interface TestSession {
  userId: string;
  cookie: string;
  /** Headers of a same-origin browser request with this session. */
  headers: Record<string, string>;
}

/** Opens a session the way the identity-provider callback does, for the person with this (verified) e-mail. */
export async function sessionFor(srv: TestServer, email: string, name?: string): Promise<TestSession> {
  const { user, sessionSecret } = await srv.identity.signIn({ issuer: 'https://idp.test', subject: `sub-${email}`, email, emailVerified: true, name });
  const cookie = `kb_session=${sessionSecret}`;
  return { userId: user.id, cookie, headers: { Cookie: cookie, Origin: srv.url } };
}

/** Creates an API key for that person and returns bearer headers. */
export async function bearerFor(srv: TestServer, userId: string): Promise<{ secret: string; headers: Record<string, string> }> {
  const { secret } = await srv.identity.createApiKey(userId, { name: 'test', expiresAt: null });
  return { secret, headers: { Authorization: `Bearer ${secret}` } };
}
