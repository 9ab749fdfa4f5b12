// Rate limits hold per person across instances (issue 17): the buckets live in the database, so a person
// writing through A and B alternately gets the one limit, not one per instance; another person is not
// slowed by them.
import { beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../helpers/postgres.ts';
import { call, writersOnTwoInstances } from './instances.ts';

const LIMIT = 6;

describePostgres('two instances on one PostgreSQL: rate limits', () => {
  const w = writersOnTwoInstances(['busy', 'calm'], { env: { WRITE_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  let keys: string[], video: string;
  beforeAll(() => ({ keys, video } = w));

  it('counts one person’s writes through both instances against one limit', async () => {
    const { a, b } = w;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 2 * LIMIT; i++) {
      const res = await fetch(`${(i % 2 ? b : a).url}/api/comments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ entity_type: 'video', entity_id: video, body: `Comment ${i} of a busy person.` }),
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
      await res.arrayBuffer();
    }
    // A bucket refills at LIMIT per minute: within these few seconds at most one more token comes back.
    const created = statuses.filter((s) => s === 201).length;
    expect(created, statuses.join(' ')).toBeGreaterThanOrEqual(LIMIT);
    expect(created, statuses.join(' ')).toBeLessThanOrEqual(LIMIT + 1);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(201));
    expect(statuses.filter((s) => s !== 201 && s !== 429)).toEqual([]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);

    // Another person writes through either instance as usual.
    for (const inst of [a, b]) {
      const res = await call(`${inst.url}/api/comments`, { method: 'POST', headers: { Authorization: `Bearer ${keys[1]}` }, json: { entity_type: 'video', entity_id: video, body: 'A calm person writes.' } });
      expect(res.status).toBe(201);
    }
  });
});
