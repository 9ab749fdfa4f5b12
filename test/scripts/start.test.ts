// npm start: builds dist/ when it is missing or stale, installs nothing, then serves on PORT.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { NO_SCHEDULES } from '../helpers/pipeline.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-start-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  fs.rmSync(root, { recursive: true, force: true });
});

/** Runs scripts/start.ts until it prints its listening line; returns the URL and everything it printed. */
function start(env: Record<string, string>): Promise<{ url: string; output: string; child: ChildProcess }> {
  // Vitest sets BASE_URL=/ for Vite; the child must not inherit it.
  const { BASE_URL: _vite, ...inherited } = process.env;
  const child = spawn(process.execPath, ['scripts/start.ts'], { env: { ...inherited, ...NO_SCHEDULES, ...env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve({ url: m[1], output, child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`start exited ${code}:\n${output}`)));
  });
}

const stop = (child: ChildProcess) => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); });

describe('npm start', () => {
  it('builds when dist/ is missing, serves, and rebuilds only when content or BASE_URL changed', async () => {
    const content = path.join(root, 'content');
    generateCorpus({ dir: content, videos: 12, seed: 3 });
    const env = { CONTENT_DIR: content, DIST_DIR: path.join(root, 'dist'), DATA_DIR: path.join(root, 'var'), BASE_URL: 'http://first.test', ALLOW_DEV_IDP: 'true' };

    const first = await start(env);
    expect(first.output).toMatch(/building dist\/ \(no build yet\)/);
    const res = await fetch(`${first.url}/api/videos`);
    expect((await res.json()).total).toBe(12);
    await stop(first.child);

    const second = await start(env);
    expect(second.output).not.toMatch(/building/);
    await stop(second.child);

    const third = await start({ ...env, BASE_URL: 'http://second.test' });
    expect(third.output).toMatch(/BASE_URL changed/);
    const meta = await (await fetch(`${third.url}/.well-known/oauth-protected-resource`)).json();
    expect(meta.resource).toBe('http://second.test/mcp');
    await stop(third.child);

    const video = fs.readdirSync(path.join(content, 'videos'))[0];
    const file = path.join(content, 'videos', video);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: "An edited title"'));
    const fourth = await start(env);
    expect(fourth.output).toMatch(/content changed since the last build/);
    const id = video.replace(/\.md$/, '');
    expect((await (await fetch(`${fourth.url}/api/videos/${id}`)).json()).title).toBe('An edited title');
    await stop(fourth.child);
    // Four starts, three of them building: 33-54 s here, past the 60 s default once under load.
  }, 120_000);

  it('starts on content with an invalid file, naming it, and serves the rest (issue 41)', async () => {
    const content = path.join(root, 'bad-content');
    generateCorpus({ dir: content, videos: 12, seed: 4 });
    const files = fs.readdirSync(path.join(content, 'channels'));
    fs.writeFileSync(path.join(content, 'channels', files[0]), '---\nchannel_id: x\n---\n');
    const s = await start({ CONTENT_DIR: content, DIST_DIR: path.join(root, 'dist2'), DATA_DIR: path.join(root, 'var2'), PIPELINE: 'off' });
    try {
      expect(s.output).toMatch(new RegExp(`start: channels/${files[0]} fails validation \\(.*\\): not published`));
      // The channel is left out (it has no earlier valid version); every other one is served.
      expect((await fetch(`${s.url}/api/channels/${files[0].replace(/\.md$/, '')}`)).status).toBe(404);
      expect((await fetch(`${s.url}/api/channels/${files[1].replace(/\.md$/, '')}`)).status).toBe(200);
      const latest = (await (await fetch(`${s.url}/api/latest`)).json()) as { freshness: { pipeline_status: { invalid_files: { path: string }[] } } };
      expect(latest.freshness.pipeline_status.invalid_files.map((f) => f.path)).toContain(`channels/${files[0]}`);
    } finally {
      await stop(s.child);
    }
  });
});
