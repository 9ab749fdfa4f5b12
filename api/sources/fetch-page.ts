// Fetches one web page for POST /api/sources under the SSRF guard: each hop (at most 5 redirects) is
// checked and pinned to its checked address, the whole fetch has one deadline, the body a byte limit,
// and only HTML and plain text are accepted.
import { Agent, fetch as undiciFetch } from 'undici';
import { SourceRefused, checkUrl, pinnedLookup, resolvePublicAddress, systemResolver, type Resolver, parseCidrs } from './guard.ts';

export const MAX_REDIRECTS = 5;
const ACCEPTED_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain'];

/** The page could not be used (bad status, too large, wrong type, unreachable): the caller answers 502, or 504 on timeout. */
export class SourceFetchFailed extends Error {
  readonly timeout: boolean;
  constructor(message: string, timeout = false) {
    super(message);
    this.timeout = timeout;
  }
}

export interface FetchOptions {
  allowCidrs: string[];
  timeoutMs: number;
  maxBytes: number;
  resolve?: Resolver;
  userAgent?: string;
}

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  contentType: string;
  body: string;
}

export async function fetchPublicPage(rawUrl: string, opts: FetchOptions): Promise<FetchedPage> {
  const allow = parseCidrs(opts.allowCidrs);
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  let url = new URL(rawUrl);
  for (let hop = 0; ; hop++) {
    const host = checkUrl(url);
    const pinned = await raceDeadline(resolvePublicAddress(host, allow, opts.resolve ?? systemResolver), deadline, opts.timeoutMs);
    // One agent per hop: its connector can only ever reach the address checked for this hop.
    const agent = new Agent({ connect: { lookup: pinnedLookup(pinned), timeout: opts.timeoutMs }, connections: 1, keepAliveTimeout: 1 });
    try {
      let res: Awaited<ReturnType<typeof undiciFetch>>;
      try {
        res = await undiciFetch(url, {
          dispatcher: agent,
          redirect: 'manual',
          signal: deadline,
          headers: {
            accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8',
            'user-agent': opts.userAgent ?? 'kb-source-fetcher/1.0 (+knowledge base; adds pages users submit)',
          },
        });
      } catch (err) {
        throw failure(err, deadline, opts.timeoutMs, url);
      }
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel().catch(() => {});
        if (hop >= MAX_REDIRECTS) throw new SourceFetchFailed(`More than ${MAX_REDIRECTS} redirects`);
        let next: URL;
        try {
          next = new URL(res.headers.get('location')!, url);
        } catch {
          throw new SourceFetchFailed('A redirect pointed at an invalid URL');
        }
        // The next hop goes through checkUrl and the resolver again at the top of the loop.
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new SourceRefused(`Refused a redirect to a ${next.protocol} URL`);
        url = next;
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => {});
        throw new SourceFetchFailed(`The page answered HTTP ${res.status}`);
      }
      const contentType = (res.headers.get('content-type') ?? '').toLowerCase();
      const mediaType = contentType.split(';')[0].trim();
      if (!ACCEPTED_TYPES.includes(mediaType)) {
        await res.body?.cancel().catch(() => {});
        throw new SourceFetchFailed(`Only HTML and plain-text pages can be added, not ${mediaType || 'an untyped response'}`);
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > opts.maxBytes) {
        await res.body?.cancel().catch(() => {});
        throw new SourceFetchFailed(`The page is larger than ${opts.maxBytes} bytes`);
      }
      const bytes = await readLimited(res.body as ReadableStream<Uint8Array> | null, opts.maxBytes, deadline, opts.timeoutMs, url);
      return { url: url.toString(), contentType, body: decode(bytes, contentType) };
    } finally {
      void agent.destroy().catch(() => {});
    }
  }
}

async function readLimited(body: ReadableStream<Uint8Array> | null, max: number, deadline: AbortSignal, timeoutMs: number, url: URL): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => {});
        throw new SourceFetchFailed(`The page is larger than ${max} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof SourceFetchFailed) throw err;
    throw failure(err, deadline, timeoutMs, url);
  }
  return Buffer.concat(chunks);
}

function decode(bytes: Uint8Array, contentType: string): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  // Without a header charset, a <meta charset> in the first bytes decides (HTML's own prescan, simplified).
  const sniffed = declared ?? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(Buffer.from(bytes.subarray(0, 2048)).toString('latin1'))?.[1];
  try {
    return new TextDecoder(sniffed ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function failure(err: unknown, deadline: AbortSignal, timeoutMs: number, url: URL): Error {
  if (err instanceof SourceRefused || err instanceof SourceFetchFailed) return err;
  if (deadline.aborted) return new SourceFetchFailed(`The page did not arrive within ${timeoutMs} ms`, true);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new SourceFetchFailed(`Could not fetch ${url.host}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
}

function raceDeadline<T>(p: Promise<T>, deadline: AbortSignal, timeoutMs: number): Promise<T> {
  if (deadline.aborted) return Promise.reject(new SourceFetchFailed(`The page did not arrive within ${timeoutMs} ms`, true));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SourceFetchFailed(`The page did not arrive within ${timeoutMs} ms`, true));
    deadline.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}
