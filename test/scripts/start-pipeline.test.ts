// `npm start` runs the whole system: the server and, beside it, the pipeline's scheduler. A first start
// (no pipeline state in DATA_DIR) runs the derived jobs once, so the sample content's proposals are there
// at once; a video that appears in a channel's feed is served without a restart; PIPELINE=off serves only.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus } from '../../pipeline/lib/status.ts';
import { atomFeed, startFeedHost, type FeedHost } from '../pipeline/feeds.ts';
import { npmStart as startNpm, stopGroup } from '../helpers/pipeline.ts';
import { fixtureContent } from '../helpers/content.ts';

let root: string;
let host: FeedHost;
const children: ChildProcess[] = [];
const dirs = () => ({ CONTENT_DIR: path.join(root, 'content'), DIST_DIR: path.join(root, 'dist'), DATA_DIR: path.join(root, 'var') });

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-start-pipeline-'));
  fs.cpSync(fixtureContent(), dirs().CONTENT_DIR, { recursive: true });
  host = await startFeedHost();
  // Every channel's feed on loopback (empty, but for one new video in the first channel's).
  const channels = fs.readdirSync(path.join(dirs().CONTENT_DIR, 'channels')).map((f) => f.replace(/\.md$/, ''));
  for (const id of channels) {
    const file = path.join(dirs().CONTENT_DIR, 'channels', `${id}.md`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${host.url}/feeds/${id}.xml`));
    host.feeds.set(`/feeds/${id}.xml`, atomFeed(id, id, []));
  }
  host.feeds.set(
    `/feeds/${channels[0]}.xml`,
    atomFeed(channels[0], channels[0], [
      { id: 'startPipe01', title: 'A video the scheduler ingests', published: new Date().toISOString(), description: 'Managers changed the targets first. Then adoption followed, team by team. Costs per case fell by a fifth.' },
    ]),
  );
});
afterAll(async () => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await host?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const npmStart = (env: Record<string, string>) => startNpm({ ...dirs(), ...env }, children);

/** Stops `npm start` and everything it started: the next test reads a status no earlier run still writes. */
const stop = (child: ChildProcess) => stopGroup(child.pid!);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('npm start runs the pipeline beside the server', () => {
  it('on a first start runs the derived jobs: the pipeline’s proposals are listed without a restart', async () => {
    expect(fs.existsSync(path.join(dirs().DATA_DIR, 'pipeline', 'status.json'))).toBe(false);
    const s = await npmStart({});
    try {
      const proposals = await until('pending proposals', async () => {
        const body = (await (await fetch(`${s.url}/api/proposals`)).json()) as { total: number; items: { kind: string }[] };
        return body.total > 0 ? body : undefined;
      });
      expect(proposals.items.map((p) => p.kind)).toEqual(expect.arrayContaining(['concept_stub']));
      expect(s.output()).toMatch(/started now: build-knowledge \(first start\)/);
      await until('build-knowledge recorded', async () => (readStatus(dirs().DATA_DIR).jobs['build-knowledge']?.status === 'ok' ? true : undefined));
      // The follow-ups chain: the drafts it wrote reach the index and the site.
      await until('rebuild-site after build-knowledge', async () => (readStatus(dirs().DATA_DIR).jobs['rebuild-site']?.status === 'ok' ? true : undefined));
      // The server picks up the new build (and with it the briefing's freshness) without a restart.
      await until('the briefing to report the run', async () => {
        const latest = (await (await fetch(`${s.url}/api/latest`)).json()) as { freshness: { pipeline_status: { last_status: string } } };
        return latest.freshness.pipeline_status.last_status === 'ok' ? true : undefined;
      });
    } finally {
      await stop(s.child);
    }
  });

  it('serves a video that appears in a channel feed, without a restart', async () => {
    const s = await npmStart({ PIPELINE_RUN_ON_START: 'ingest-videos' });
    try {
      expect(s.output()).not.toMatch(/first start/);
      const video = await until('the new video', async () => {
        const res = await fetch(`${s.url}/api/videos/startPipe01`);
        return res.status === 200 ? ((await res.json()) as { title: string }) : undefined;
      });
      expect(video.title).toBe('A video the scheduler ingests');
      const list = (await (await fetch(`${s.url}/api/videos?limit=200`)).json()) as { items: { video_id: string }[] };
      expect(list.items.map((v) => v.video_id)).toContain('startPipe01');
      const search = (await (await fetch(`${s.url}/api/search?q=${encodeURIComponent('A video the scheduler ingests')}`)).json()) as { hits: { id: string }[] };
      expect(search.hits.map((h) => h.id)).toContain('startPipe01');
      // The briefing leads with it: the newest video.
      const latest = (await (await fetch(`${s.url}/api/latest`)).json()) as { latest_videos: { video_id: string; url: string }[] };
      expect(latest.latest_videos[0]).toMatchObject({ video_id: 'startPipe01', url: '/api/videos/startPipe01?agent=true' });
    } finally {
      await stop(s.child);
    }
  });

  it('with PIPELINE=off only serves', async () => {
    const before = readStatus(dirs().DATA_DIR);
    const s = await npmStart({ PIPELINE: 'off', PIPELINE_RUN_ON_START: 'ingest-videos' });
    try {
      await until('the PIPELINE=off line', async () => (/PIPELINE=off/.test(s.output()) ? true : undefined), 10_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(readStatus(dirs().DATA_DIR)).toEqual(before);
      expect((await fetch(`${s.url}/api/health`)).status).toBe(200);
    } finally {
      await stop(s.child);
    }
  });
});
