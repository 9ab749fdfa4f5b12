// Applying an accepted proposal performs it in the content folder (issue 43): a tag_correction rewrites the
// item's tags, a link_add adds a source or a related concept to the concept, an essay_promotion writes the
// post's essay as a curated essay. The files still load, the proposal names them, and the apply is one
// audit event with the files; a change that would not load is 409 and leaves file and proposal as they were.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { fixtureContent } from '../../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const video = snap.videos[0];
const concept = snap.concepts.find((c) => !c.draft && !c.sources.some((s) => s.type === 'video' && s.id === snap.videos[1].video_id))!;
const other = snap.concepts.find((c) => !c.draft && c.slug !== concept.slug && !concept.related.includes(c.slug))!;
let contentDir: string;
let srv: TestServer;
let send: Send;
let ana: TestSession, mod: TestSession;

beforeAll(async () => {
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-apply-content-'));
  fs.cpSync(fixtureContent(), contentDir, { recursive: true });
  srv = await startTestServer({ contentDir, env: { MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  mod = await sessionFor(srv, 'mod@example.org', 'Moderator');
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(contentDir, { recursive: true, force: true });
});

const propose = async (body: unknown) => {
  const res = await send('/api/proposals', { method: 'POST', as: ana, json: body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).proposal_id as string;
};
const decide = (id: string, action: string) => send(`/api/proposals/${id}/decision`, { method: 'POST', as: mod, json: { action } });
const acceptAndApply = async (id: string) => {
  expect((await decide(id, 'accept')).status).toBe(200);
  return decide(id, 'apply');
};
const read = (rel: string) => fs.readFileSync(path.join(contentDir, rel), 'utf8');

describe('applying a proposal changes the content folder', () => {
  it('a tag_correction rewrites the video\'s tags in its file, which still loads, and records the file', async () => {
    const rel = `videos/${video.video_id}.md`;
    const before = read(rel);
    const id = await propose({ kind: 'tag_correction', title: 'Retag', payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'], remove: [video.tags[0]] } });
    const res = await acceptAndApply(id);
    expect(res.status, await res.clone().text()).toBe(200);
    const p = await res.json();
    expect(p).toMatchObject({ status: 'applied', applied: { content_changed: true, files: [rel] } });
    expect(p.applied.note).toContain(`[${video.tags.join(', ')}] → [${[...video.tags.slice(1), 'case-study'].join(', ')}]`);
    const loaded = loadSnapshot(contentDir).videosById.get(video.video_id)!;
    expect(loaded.tags).toEqual([...video.tags.slice(1), 'case-study']);
    expect({ ...loaded, tags: video.tags }).toEqual(video); // nothing else changed: summary, transcript, dates
    expect(read(rel)).not.toBe(before);
    const events = (await (await send(`/api/audit?subject_type=proposal&subject_id=${id}`)).json()).items as { kind: string; data: { files?: string[] } }[];
    expect(events.find((e) => e.kind === 'proposal.apply')?.data).toMatchObject({ from: 'accepted', to: 'applied', content_changed: true, files: [rel] });
  });

  it('a link_add adds the source, or the related concept, to the concept\'s front matter', async () => {
    const rel = `knowledge/${concept.slug}.md`;
    const source = await propose({ kind: 'link_add', title: 'Cite', payload: { concept: concept.slug, link: { type: 'video', id: snap.videos[1].video_id } } });
    expect((await (await acceptAndApply(source)).json()).applied).toMatchObject({ content_changed: true, files: [rel] });
    const related = await propose({ kind: 'link_add', title: 'Relate', payload: { concept: concept.slug, link: { type: 'knowledge', id: other.slug } } });
    expect((await (await acceptAndApply(related)).json()).applied).toMatchObject({ content_changed: true, files: [rel] });
    const loaded = loadSnapshot(contentDir).conceptsBySlug.get(concept.slug)!;
    expect(loaded.sources).toEqual([...concept.sources, { type: 'video', id: snap.videos[1].video_id }]);
    expect(loaded.related).toEqual([...concept.related, other.slug]);
    expect(loaded.body).toBe(concept.body);
  });

  it('an essay_promotion writes the post\'s essay into essays/<slug>/<lang>.md', async () => {
    const essay = `How we ran the queue, with [the case](/videos/${video.video_id}). ${'Reviews, rotations and the people who keep them moving. '.repeat(4)}`;
    const post = await (await send('/api/posts', { method: 'POST', as: ana, json: { title: 'Queues before agents', summary: 'Why the queue comes first.', tags: ['agents'], body: essay } })).json();
    expect((await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: ana })).status).toBe(202);
    const id = await propose({ kind: 'essay_promotion', title: 'Promote it', payload: { post_id: post.post_id } });
    const rel = `essays/${post.slug}/en.md`;
    expect((await (await acceptAndApply(id)).json()).applied).toMatchObject({ content_changed: true, files: [rel] });
    const loaded = loadSnapshot(contentDir).essaysBySlug.get(post.slug)!;
    expect(loaded.translations.en).toMatchObject({ title: 'Queues before agents', description: 'Why the queue comes first.', tags: ['agents'] });
    expect(read(rel)).toContain(essay.trim());
    const again = await propose({ kind: 'essay_promotion', title: 'Promote it twice', payload: { post_id: post.post_id } });
    const res = await acceptAndApply(again);
    expect(res.status).toBe(409);
    expect((await res.json()).detail).toContain(`essays/${post.slug} exists already`);
  });

  it('refuses (409) a change that would not load, writing nothing and leaving the proposal accepted', async () => {
    const target = snap.videos[2];
    const rel = `videos/${target.video_id}.md`;
    const before = read(rel);
    const add = Array.from({ length: 12 }, (_, i) => `extra-tag-${i}`);
    const id = await propose({ kind: 'tag_correction', title: 'Too many tags', payload: { target: { type: 'video', id: target.video_id }, add } });
    const res = await acceptAndApply(id);
    expect(res.status).toBe(409);
    expect((await res.json()).detail).toMatch(new RegExp(`^Cannot apply: ${rel} would not load \\(tags`));
    expect(read(rel)).toBe(before);
    expect((await (await send(`/api/proposals/${id}`)).json()).status).toBe('accepted');
  });
});
