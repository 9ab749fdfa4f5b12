// The request body limit, enforced in the Node listener before any route reads a body. A body over the
// limit is answered 413 `{"detail"}` at once, and the rest of it is then read and dropped (up to a bound)
// so the client can finish sending and read the answer: closing a socket whose unread bytes are still
// arriving makes the kernel reset it, and a client that sends before it reads sees EPIPE, never the 413.
import type http from 'node:http';

/** The largest request body any route accepts (the largest, a post essay, is 100k characters). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const BODY_TOO_LARGE = 'Request body too large (1 MB at most)';

/** How much of a refused body is read and dropped, and for how long, before the connection is closed. */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

const hasNoBody = (method: string | undefined) => method === 'GET' || method === 'HEAD';

/**
 * Refuses a request whose declared Content-Length is over the limit (true when it has answered). Runs first
 * for every request. GET and HEAD are not looked at.
 */
export function refuseDeclaredOversize(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (hasNoBody(req.method) || req.headers['transfer-encoding'] !== undefined) return false;
  const declared = req.headers['content-length'];
  if (declared === undefined || !(Number(declared) > MAX_BODY_BYTES)) return false;
  refuse(req, res, 0, Number(declared));
  return true;
}

/**
 * A chunked body (length unknown until its end) is read here, up to the limit, and handed on whole as
 * `rawBody`, which the Hono Node adapter uses instead of the stream; over the limit it is refused. Other
 * requests go on at once. Only for requests the Hono app answers (the embedded identity provider reads its
 * own bodies).
 * @example if (!refuseDeclaredOversize(req, res)) bufferChunkedBody(req, res, () => void honoListener(req, res))
 */
export function bufferChunkedBody(req: http.IncomingMessage, res: http.ServerResponse, next: () => void): void {
  if (hasNoBody(req.method) || req.headers['transfer-encoding'] === undefined) return next();
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      req.off('data', onData).off('end', onEnd);
      chunks.length = 0;
      refuse(req, res, size, undefined);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    (req as http.IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.concat(chunks, size);
    next();
  };
  req.on('data', onData).on('end', onEnd);
}

/** The OAuth 2.1 and device-flow endpoints (api/oauth, api/device), whose errors are RFC 6749 JSON. */
export function isOAuthEndpoint(url: string | undefined): boolean {
  const p = (url ?? '').split('?')[0];
  return p.startsWith('/api/oauth/');
}

/**
 * Answers 413 now and keeps the connection open while the client sends the rest (dropped unread). Past the
 * drain bound, or when the declared length already exceeds it, the connection is closed instead.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, alreadyRead: number, declared: number | undefined): void {
  // OAuth endpoints answer every error in RFC 6749's form; the rest of the API in FastAPI's.
  const body = JSON.stringify(isOAuthEndpoint(req.url) ? { error: 'invalid_request', error_description: BODY_TOO_LARGE } : { detail: BODY_TOO_LARGE });
  const drain = declared === undefined || declared <= DRAIN_MAX_BYTES;
  res.writeHead(413, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(drain ? {} : { Connection: 'close' }),
  });
  res.end(body);
  if (!drain) return;
  let seen = alreadyRead;
  const giveUp = () => {
    clearTimeout(timer);
    req.socket?.destroy();
  };
  const timer = setTimeout(giveUp, DRAIN_MAX_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_MAX_BYTES) giveUp();
  });
  req.on('end', () => clearTimeout(timer));
  req.on('close', () => clearTimeout(timer));
  req.resume();
}
