// The baseline for static serving: a bare node:http server answering one file's bytes from memory, with
// the same headers our server sends. Usage: node scripts/bench/bare-server.ts <file>
import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';

const body = fs.readFileSync(process.argv[2]);
const headers = {
  'Content-Type': 'application/json; charset=utf-8',
  ETag: '"bench"',
  'Cache-Control': 'public, max-age=60',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
  'Content-Length': String(body.length),
};
const server = http.createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
