// The app's requests take turns (api/http/fair-turns.ts): the first of an event-loop iteration starts at
// once, the others in arrival order one per iteration, so that I/O arriving meanwhile (a health probe's
// request) is handled between two of them rather than after all.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fairTurns } from '../../../api/http/fair-turns.ts';

/** A loopback connection whose server side records each chunk it receives in `order`. */
async function probeConnection(order: string[]) {
  const server = net.createServer((socket) => socket.on('data', () => order.push('probe')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await new Promise<void>((r) => client.once('connect', r));
  // Let the server's side accept the connection before the test writes on it.
  await new Promise((r) => setTimeout(r, 20));
  return { client, close: () => new Promise<void>((r) => (client.destroy(), server.close(() => r()))) };
}

/** Blocks the thread for `ms`, as a request whose statements run synchronously does. */
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('fair turns for the app’s requests', () => {
  it('starts the first task at once and lets I/O that arrives meanwhile in before the tasks that wait', async () => {
    const order: string[] = [];
    const conn = await probeConnection(order);
    cleanup = conn.close;
    const inTurn = fairTurns((err) => order.push(`error ${String(err)}`));
    conn.client.write('GET /api/health');
    for (let i = 0; i < 6; i++) inTurn(() => (busy(2), order.push(`task ${i}`)));
    expect(order).toEqual(['task 0']);
    await new Promise((r) => setTimeout(r, 100));
    // Every task ran, in the order given, and the probe's data was handled before the last of them.
    expect(order.filter((o) => o.startsWith('task'))).toEqual(['task 0', 'task 1', 'task 2', 'task 3', 'task 4', 'task 5']);
    expect(order.indexOf('probe')).toBeGreaterThan(0);
    expect(order.indexOf('probe')).toBeLessThan(order.indexOf('task 3'));
  });

  it('reports a task that throws and goes on with the next; a lone task later starts at once again', async () => {
    const order: string[] = [];
    const inTurn = fairTurns((err) => order.push(`error ${(err as Error).message}`));
    inTurn(() => order.push('first'));
    inTurn(() => {
      throw new Error('broken');
    });
    inTurn(() => order.push('third'));
    expect(order).toEqual(['first']);
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['first', 'error broken', 'third']);
    inTurn(() => order.push('alone'));
    expect(order.at(-1)).toBe('alone');
  });
});
