// A scripted OpenAI-compatible chat-completions server on loopback: each test says what the next answer
// is (a reply, a stream, silence, a 500, a stream cut off) and reads what the server was asked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Script =
  | { kind: 'reply'; content: string }
  | { kind: 'stream'; deltas: string[] }
  | { kind: 'hang' }
  | { kind: 'error500' }
  | { kind: 'cut'; deltas: string[] };

export interface LlmServer {
  url: string;
  next: Script;
  requests: { body: { model: string; messages: { role: string; content: string }[]; stream?: boolean; temperature?: number; max_tokens?: number } }[];
  close(): Promise<void>;
}

export async function startLlmServer(): Promise<LlmServer> {
  const hanging = new Set<http.ServerResponse>();
  const state: LlmServer = { url: '', next: { kind: 'reply', content: 'ok' }, requests: [], close: async () => {} };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw);
    state.requests.push({ body });
    const s = state.next;
    const chunk = (content: string | null, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] })}\n\n`;
    switch (s.kind) {
      case 'reply':
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: s.content }, finish_reason: 'stop' }] }));
        return;
      case 'stream':
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        for (const d of s.deltas) res.write(chunk(d, null));
        res.write(chunk(null, 'stop'));
        res.end('data: [DONE]\n\n');
        return;
      case 'cut':
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        for (const d of s.deltas) res.write(chunk(d, null));
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      case 'hang':
        hanging.add(res);
        return;
      case 'error500':
        res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"model crashed"}');
        return;
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const res of hanging) res.destroy();
      server.close(() => r());
      server.closeAllConnections();
    });
  return state;
}

/** Reads a server-sent-event body into its events. */
export async function readEvents(res: Response): Promise<{ event: string; data: string }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      return { event, data };
    });
}
