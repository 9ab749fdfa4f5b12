// Whether one request holds the event loop: runs it while /api/health is asked every 25 ms, and returns the
// request's time and the slowest health answer. The server's event loop is shared, so a request that stalls
// the process shows in both (the hostile-input tests).
import type { TestServer } from './server.ts';

export async function timed(srv: TestServer, request: () => Promise<unknown>): Promise<{ ms: number; healthMs: number }> {
  let healthMs = 0;
  let done = false;
  const probe = (async () => {
    while (!done) {
      const t = performance.now();
      const res = await srv.get('/api/health');
      await res.arrayBuffer();
      healthMs = Math.max(healthMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const t = performance.now();
  try {
    await request();
  } finally {
    done = true;
  }
  const ms = performance.now() - t;
  await probe;
  return { ms, healthMs };
}
