// Whether a request came from this machine, for the development sign-in: in dev mode anyone it answers
// signs in as anyone, so unless ALLOW_DEV_IDP=true it answers only connections from a loopback address.
// The connection's own peer address is what counts, never a forwarded header (TRUST_PROXY): a client
// names itself whatever it likes there.
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

/** 127.0.0.0/8 and ::1, also written as IPv4-mapped IPv6 (::ffff:127.0.0.1, as a dual-stack socket reports it). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** The request arrived on a connection from this machine. */
export function arrivedOnLoopback(req: IncomingMessage): boolean {
  return isLoopbackAddress(req.socket.remoteAddress);
}

/** The same for a Hono request served by @hono/node-server (or handed on in process with its incoming request). */
export function contextOnLoopback(c: Context): boolean {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return !!incoming?.socket && arrivedOnLoopback(incoming);
}
