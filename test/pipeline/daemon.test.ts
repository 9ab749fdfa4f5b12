// The scheduler end to end: Bree runs ingest-videos, which is followed by summarise, update-index and
// rebuild-site in the same worker; the running server picks up the new build without a restart.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { buildSite } from '../../scripts/build.ts';
import { readStatus } from '../../pipeline/lib/status.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { atomFeed, startFeedHost, type FeedHost } from './feeds.ts';
import { NO_SCHEDULES } from '../helpers/pipeline.ts';

let host: FeedHost;
let root: string;
let srv: TestServer;
const dirs = () => ({ CONTENT_DIR: path.join(root, 'content'), DATA_DIR: path.join(root, 'var'), DIST_DIR: path.join(root, 'dist'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' });

beforeAll(async () => {
  host = await startFeedHost();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-daemon-'));
  generateCorpus({ dir: dirs().CONTENT_DIR, videos: 15, seed: 9 });
  for (const f of fs.readdirSync(path.join(dirs().CONTENT_DIR, 'channels'))) {
    const id = f.replace(/\.md$/, '');
    const file = path.join(dirs().CONTENT_DIR, 'channels', f);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${host.url}/feeds/${id}.xml`));
    host.feeds.set(`/feeds/${id}.xml`, atomFeed(id, id, []));
  }
  host.feeds.set('/feeds/channel-1.xml', atomFeed('channel-1', 'One', [{ id: 'daem0000001', title: 'Fresh from the feed', published: '2026-11-21T06:00:00+00:00', description: 'The team started from the work, not the model. Adoption stalled until managers changed targets. Costs per task fell by a third.' }]));
  await buildSite({ ...process.env, ...dirs() }, { renderInProcess: true });
  srv = await startTestServer({ contentDir: dirs().CONTENT_DIR, distDir: dirs().DIST_DIR, env: { DATA_DIR: dirs().DATA_DIR } });
});
afterAll(async () => {
  await srv.stop();
  await host.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('npm run pipeline (the scheduler)', () => {
  it('runs a job, chains its follow-ups, and the server serves the new build', async () => {
    expect((await srv.get('/api/videos/daem0000001')).status).toBe(404);
    // Watching off too: with nothing to wait for, the scheduler ends when the chain is done.
    const daemon = spawn(process.execPath, ['pipeline/index.ts'], { env: { ...process.env, ...NO_SCHEDULES, ...dirs(), PIPELINE_RUN_ON_START: 'ingest-videos', PIPELINE_WATCH: 'off' }, stdio: 'pipe' });
    let out = '';
    daemon.stdout!.on('data', (d) => (out += d));
    daemon.stderr!.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 60_000;
      const jobs = () => readStatus(dirs().DATA_DIR).jobs;
      // The status file is written before the job's log line: wait for both.
      while (Date.now() < deadline && !(jobs()['rebuild-site']?.status === 'ok' && /pipeline: rebuild-site ok/.test(out))) await new Promise((r) => setTimeout(r, 250));
      expect(jobs()['ingest-videos'], out).toMatchObject({ status: 'ok', counts: { added: 1 } });
      expect(jobs().summarise).toMatchObject({ status: 'ok', counts: { summarised: 1 } });
      expect(jobs()['rebuild-site'], out).toMatchObject({ status: 'ok' });
      // Each follow-up ran after the job before it — none ran by itself when the scheduler started.
      const order = ['ingest-videos', 'summarise', 'update-index', 'rebuild-site'].map((j) => jobs()[j]);
      for (let i = 1; i < order.length; i++) expect(order[i].started_at >= order[i - 1].finished_at!, out).toBe(true);
      // The follow-ups ran in ingest's worker (one load of the corpus for the run, not one per job).
      for (const job of ['summarise', 'update-index', 'rebuild-site']) expect(out).toMatch(new RegExp(`pipeline: ${job} ok .* \\(chained in the ingest-videos worker\\)`));
      // The server watches build-meta.json and reloads: the static file for the new video appears.
      let res: Response | undefined;
      for (let i = 0; i < 40; i++) {
        res = await srv.get('/api/videos/daem0000001');
        if (res.status === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(res!.status).toBe(200);
      const v = await res!.json();
      expect(v.summary.length).toBeGreaterThan(20);
      const latest = await (await srv.get('/api/latest')).json();
      expect(latest.freshness.pipeline_status.last_status).toBe('ok');
      expect(latest.freshness.pipeline_status.last_run_at).not.toBeNull();
      // No job has a schedule here, so nothing keeps the scheduler alive: it ends once the chain is done.
      const code = daemon.exitCode ?? (await new Promise((r) => daemon.once('exit', r)));
      expect(code, out).toBe(0);
      expect(out).toMatch(/no job has a schedule/);
    } finally {
      // With every schedule off the scheduler ends by itself once the chain is done.
      if (daemon.exitCode === null && daemon.signalCode === null) {
        const exited = new Promise((r) => daemon.once('exit', r));
        daemon.kill('SIGTERM');
        await exited;
      }
    }
  });
});
