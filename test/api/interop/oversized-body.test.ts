// Issue 15, item 3: a body over the 1 MB limit is answered 413 with `{"detail": …}`, and the client reads
// that answer every time: the server lets it finish sending (up to a bound) before anything closes, instead
// of resetting a connection whose unread bytes are still arriving (EPIPE / ECONNRESET at the client).
// The client here is the simplest kind (python requests, curl without Expect): it writes the whole request,
// in pieces as a real network delivers them, and only then reads.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 connection: write a whole request, then read one response (Content-Length framed). */
class Connection {
  private socket: net.Socket;
  private host: string;
  private buffered = Buffer.alloc(0);
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private ended = false;
  private constructor(socket: net.Socket, host: string) {
    this.socket = socket;
    this.host = host;
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      this.wake?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake?.();
    });
    socket.on('error', (e) => {
      this.failure = e;
      this.wake?.();
    });
    // Nothing is read while the request is written: a simple client does not look until it has sent all.
    socket.pause();
  }
  static open(url: string): Promise<Connection> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = net.connect(Number(u.port), u.hostname, () => resolve(new Connection(s, u.host)));
      s.once('error', reject);
    });
  }
  private async write(data: Buffer | string): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.socket.write(data)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
    if (this.failure) throw this.failure;
  }
  /** Sends the request in `step`-byte writes with a pause between them, then reads the answer. */
  async request(path: string, body: Buffer, opts: { chunked?: boolean; headers?: Record<string, string>; step?: number; pauseMs?: number } = {}): Promise<Answer> {
    const step = opts.step ?? 64 * 1024;
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${this.host}`,
      'Content-Type: application/json',
      opts.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`,
      ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ];
    await this.write(`${head.join('\r\n')}\r\n\r\n`);
    for (let i = 0; i < body.length; i += step) {
      const piece = body.subarray(i, i + step);
      await this.write(opts.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
      if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
    if (opts.chunked) await this.write('0\r\n\r\n');
    this.socket.resume();
    return this.readAnswer();
  }
  private async readAnswer(): Promise<Answer> {
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length']);
        if (this.buffered.length >= end + 4 + length) {
          const body = this.buffered.subarray(end + 4, end + 4 + length).toString('utf8');
          this.buffered = this.buffered.subarray(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.failure) throw this.failure;
      if (this.ended) throw new Error('connection closed before a whole answer arrived');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
  close() {
    this.socket.destroy();
  }
}

const oversized = () => Buffer.from(JSON.stringify({ entity_type: 'video', entity_id: 'x', body: 'a'.repeat(2 * 1024 * 1024) }));

async function expect413(send: () => Promise<Answer>, i: number) {
  let answer: Answer;
  try {
    answer = await send();
  } catch (err) {
    throw new Error(`request ${i} failed at the client instead of reading the 413: ${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`);
  }
  expect(answer.status, `request ${i}`).toBe(413);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Request body too large (1 MB at most)' });
}

async function once(path: string, body: Buffer, opts: Parameters<Connection['request']>[2] = {}): Promise<Answer> {
  const conn = await Connection.open(srv.url);
  try {
    return await conn.request(path, body, opts);
  } finally {
    conn.close();
  }
}

describe('oversized request bodies', () => {
  it('50 requests of 2 MB (Content-Length), sent whole before reading, each read a 413 with the detail body', async () => {
    const body = oversized();
    for (let i = 0; i < 50; i++) await expect413(() => once('/api/comments', body, { pauseMs: 1 }), i);
  });

  it('the same for chunked bodies of unknown length, and for a signed-in caller', async () => {
    const body = oversized();
    const who = await sessionFor(srv, 'big@example.com');
    for (let i = 0; i < 10; i++) await expect413(() => once('/api/comments', body, { chunked: true, pauseMs: 1 }), i);
    for (let i = 0; i < 10; i++) await expect413(() => once('/api/posts', body, { pauseMs: 1, headers: { Cookie: who.cookie, Origin: srv.url } }), i);
  });

  it('the connection that carried an oversized body serves the next request', async () => {
    const conn = await Connection.open(srv.url);
    try {
      await expect413(() => conn.request('/api/comments', oversized(), { pauseMs: 1 }), 0);
      const next = await conn.request('/api/no-such-route', Buffer.from('{}'));
      expect(next.status).toBe(404);
      expect(JSON.parse(next.body)).toMatchObject({ detail: 'Not found' });
    } finally {
      conn.close();
    }
  });

  it('an OAuth endpoint refuses an oversized body in RFC 6749 form', async () => {
    for (const path of ['/api/oauth/v2/token', '/api/oauth/v2/register', '/api/oauth/token', '/api/oauth/device']) {
      for (const chunked of [false, true]) {
        const answer = await once(path, oversized(), { chunked, pauseMs: 1 });
        expect(answer.status, path).toBe(413);
        expect(JSON.parse(answer.body), path).toEqual({ error: 'invalid_request', error_description: 'Request body too large (1 MB at most)' });
      }
    }
  });

  it('bodies within the limit, declared or chunked, reach the route as before', async () => {
    const body = Buffer.from(JSON.stringify({ pad: 'a'.repeat(1024 * 1024 - 100) }));
    expect(body.length).toBeLessThanOrEqual(1024 * 1024);
    const who = await sessionFor(srv, 'small@example.com');
    const headers = { Cookie: who.cookie, Origin: srv.url };
    for (const chunked of [false, true]) {
      const answer = await once('/api/comments', body, { chunked, headers });
      expect(answer.status).toBe(422);
      expect(JSON.parse(answer.body).detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain('body.entity_type');
    }
  });
});
