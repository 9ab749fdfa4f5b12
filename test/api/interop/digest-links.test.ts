// Issue 15, item 1: the briefing's digest Markdown keeps the spec's link form, `[title](/videos/<video_id>)`
// on each item's Sources line; agents get JSON links from latest_videos[].url, which the spec gives in the
// agent form. Checked on the prerendered file and on the dynamic route alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('GET /api/latest: digest links', () => {
  // `?fresh=1` is an unknown parameter: the static file is skipped and the dynamic route answers.
  for (const path of ['/api/latest', '/api/brief', '/api/latest?fresh=1']) {
    it(`${path}: every Sources line links /videos/<video_id>, and latest_videos[].url is the agent form`, async () => {
      const res = await srv.get(path);
      expect(res.status).toBe(200);
      const brief = await res.json();
      const content: string = brief.latest_digest.content;
      const sources = content.split('\n').filter((l) => l.startsWith('Sources:'));
      expect(sources).toHaveLength(5);
      for (const line of sources) {
        const links = [...line.matchAll(/\[[^\]]+\]\(([^)]+)\)/g)].map((m) => m[1]);
        expect(links.length).toBeGreaterThan(0);
        for (const href of links) expect(href).toMatch(/^\/videos\/[A-Za-z0-9_-]+$/);
      }
      expect(content).not.toContain('/api/videos/');
      expect(content).not.toContain('agent=true');
      for (const v of brief.latest_videos) expect(v.url).toBe(`/api/videos/${v.video_id}?agent=true`);
    });
  }
});
