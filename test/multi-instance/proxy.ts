// A round-robin reverse proxy on loopback, as a load balancer in front of several instances on one host:
// each request (not each connection) goes to the next instance, with its Host header kept, so the
// instances see the shared origin (BASE_URL) in every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Proxy {
  url: string;
  /** Which target answered each request, in order (index into `targets`). */
  served: number[];
  close(): Promise<void>;
}

/** @example const proxy = await roundRobinProxy(port, [a.url, b.url]) */
export async function roundRobinProxy(port: number, targets: string[]): Promise<Proxy> {
  let next = 0;
  const served: number[] = [];
  const server = http.createServer((req, res) => {
    const i = next++ % targets.length;
    served.push(i);
    const target = new URL(targets[i]);
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
