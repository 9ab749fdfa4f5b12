// Web servers for the source-fetching tests: "the internet" on 127.0.0.2 (the one address the tests put
// on the SSRF allow-list) and an internal service on 127.0.0.1 that must never be reached.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  origin: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

const ARTICLE = (title: string, canonical?: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>${canonical ? `<link rel="canonical" href="${canonical}">` : ''}
<style>body { color: red }</style><script>window.tracking = "SCRIPT-SHOULD-NOT-APPEAR";</script></head>
<body><nav><a href="/">Home</a> <a href="/about">NAV-SHOULD-NOT-APPEAR</a></nav>
<article><h1>${title}</h1>
<p>Claims handling at a mid-size insurer changed when agents began drafting the first assessment of every claim. The adjusters review each draft before it goes to the customer, and the review is where most of the value lies.</p>
<p>Cycle time fell from nine days to four, while the share of claims reopened after payment stayed flat. The team measured both for six months before rolling the approach out to every branch.</p>
<p>The hardest part was not the model but the process: who signs off, who answers the customer, and what happens when the agent is unsure.</p>
</article><footer>Footer text</footer></body></html>`;

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closer(server: http.Server) {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** The allowed "public" site, with pages for every path of the fetcher: success, redirects, limits. */
export async function startPageServer(host = '127.0.0.2'): Promise<PageServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    hits.push(u.pathname + u.search);
    const html = (body: string, status = 200) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    switch (u.pathname) {
      case '/article':
        return html(ARTICLE('Agents in claims handling', `${origin}/article`));
      case '/article-copy':
        // Same page under another path: its rel=canonical names /article.
        return html(ARTICLE('Agents in claims handling (print view)', '/article'));
      case '/offsite-canonical':
        return html(ARTICLE('A page that claims another site', 'https://other.example/article'));
      case '/no-canonical':
        return html(ARTICLE('Underwriting with agents'));
      case '/latin1':
        res.writeHead(200, { 'Content-Type': 'text/html; charset=iso-8859-1' });
        return res.end(Buffer.from('<html><head><title>Caf\u00e9 notes</title></head><body><p>Un caf\u00e9 cr\u00e8me, s\u2019il vous pla\u00eet.</p></body></html>'.replace('\u2019', "'"), 'latin1'));
      case '/plain':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        return res.end('Plain notes on agent evaluation\n\nEvaluate agents on the tasks they will do, with the data they will see.');
      case '/json':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end('{"not":"a page"}');
      case '/empty':
        return html('<html><head></head><body><script>1</script></body></html>');
      case '/missing':
        return html('<p>not here</p>', 404);
      case '/big':
        return html(`<html><body><p>${'x'.repeat(200_000)}</p></body></html>`);
      case '/big-chunked': {
        // No Content-Length: the limit has to be enforced while reading.
        res.writeHead(200, { 'Content-Type': 'text/html' });
        let sent = 0;
        const more = () => {
          while (sent < 300_000) {
            sent += 16_384;
            if (!res.write(`<p>${'y'.repeat(16_377)}</p>`)) return void res.once('drain', more);
          }
          res.end();
        };
        return more();
      }
      case '/slow-body':
        // Headers at once, then the body trickles in for longer than the fetch deadline.
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.write('<html><body><p>start');
        return void setTimeout(() => res.end('</p></body></html>'), 5000).unref();
      case '/hang':
        return; // never answers
      case '/redirect': {
        res.writeHead(302, { Location: u.searchParams.get('to') ?? '/' });
        return res.end();
      }
      default: {
        const chain = /^\/chain\/(\d+)$/.exec(u.pathname);
        if (chain) {
          const n = Number(chain[1]);
          res.writeHead(301, { Location: n > 0 ? `/chain/${n - 1}` : `/no-canonical?via=chain` });
          return res.end();
        }
        return html('<p>nothing</p>', 404);
      }
    }
  });
  const port = await listen(server, host);
  const origin = `http://${host}:${port}`;
  return { origin, port, hits, close: closer(server) };
}

/** An "internal" service on loopback that the fetcher must never reach; it records every request. */
export async function startInternalServer(): Promise<PageServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html><head><title>INTERNAL SECRET</title></head><body><p>metadata: secret-token</p></body></html>');
  });
  const port = await listen(server, '127.0.0.1');
  return { origin: `http://127.0.0.1:${port}`, port, hits, close: closer(server) };
}
