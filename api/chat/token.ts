// Chat tokens: short-lived, bound to one user (or an anonymous caller), one persona, one language and one
// mode, so a browser chat widget never holds a long-lived credential. Stateless: a payload and its
// HMAC-SHA256 under a key in DATA_DIR/keys; verified in constant time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { secretKey } from '../../src/lib/data/keys.ts';

export const CHAT_TOKEN_PREFIX = 'cht_';

export interface ChatClaims {
  /** The user id, or null for an anonymous chat (CHAT_ALLOW_ANONYMOUS). */
  sub: string | null;
  persona: string;
  lang: 'en' | 'sl';
  mode: string;
  /** Expiry, epoch seconds. */
  exp: number;
  /** Rate-limit key of an anonymous caller (its address), so the limit follows the token. */
  anon?: string;
  jti: string;
}

export class ChatTokenError extends Error {}

export function chatTokenKey(dataDir: string): Buffer {
  return secretKey(dataDir, 'chat-token.key');
}

export function issueChatToken(key: Buffer, claims: Omit<ChatClaims, 'jti'>): string {
  const payload = Buffer.from(JSON.stringify({ ...claims, jti: randomBytes(9).toString('base64url') })).toString('base64url');
  const mac = createHmac('sha256', key).update(payload).digest('base64url');
  return `${CHAT_TOKEN_PREFIX}${payload}.${mac}`;
}

/** The claims of a genuine, unexpired token; ChatTokenError otherwise. */
export function verifyChatToken(key: Buffer, token: string, nowSeconds = Math.floor(Date.now() / 1000)): ChatClaims {
  if (!token.startsWith(CHAT_TOKEN_PREFIX)) throw new ChatTokenError('not a chat token');
  const [payload, mac] = token.slice(CHAT_TOKEN_PREFIX.length).split('.');
  if (!payload || !mac) throw new ChatTokenError('malformed chat token');
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ChatTokenError('invalid chat token');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ChatClaims;
  if (!(claims.exp > nowSeconds)) throw new ChatTokenError('the chat token has expired; ask /api/chat/auth for a new one');
  return claims;
}
