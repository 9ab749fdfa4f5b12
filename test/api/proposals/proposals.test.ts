// Proposals: creation by people and by the pipeline, listing buckets and order, community flags with the
// auto-reject threshold, moderator decisions along the allowed transitions, and no half-done writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { createProposal } from '../../../src/lib/data/proposals/store.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { failAuditEvents } from '../../helpers/db-faults.ts';
import { fixtureContent } from '../../helpers/content.ts';

const THRESHOLD = 3;
const snap = loadSnapshot(fixtureContent());
const video = snap.videos[0];
const concept = snap.concepts.find((c) => !c.draft)!;
let contentDir: string;
let srv: TestServer;
let send: Send;
let ana: TestSession, bor: TestSession, cid: TestSession, dan: TestSession, mod: TestSession;

beforeAll(async () => {
  // Applying a concept_stub writes into content/: a temporary copy keeps the repository's untouched.
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-proposals-content-'));
  fs.cpSync(fixtureContent(), contentDir, { recursive: true });
  srv = await startTestServer({ contentDir, env: { MODERATOR_EMAILS: 'mod@example.org', AUTO_REJECT_FLAG_THRESHOLD: String(THRESHOLD), WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  bor = await sessionFor(srv, 'bor@example.org', 'Bor');
  cid = await sessionFor(srv, 'cid@example.org', 'Cid');
  dan = await sessionFor(srv, 'dan@example.org', 'Dan');
  mod = await sessionFor(srv, 'mod@example.org', 'Moderator');
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(contentDir, { recursive: true, force: true });
});

const tagFix = (title = 'Tag the video as a case study') => ({
  kind: 'tag_correction',
  title,
  payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'] },
  evidence: { rationale: 'It describes one company in detail.' },
});
const propose = async (as: TestSession, body: unknown = tagFix()) => {
  const res = await send('/api/proposals', { method: 'POST', as, json: body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};
const flag = (as: TestSession | null, id: string, body?: unknown) =>
  send(`/api/proposals/${id}/flag`, { method: 'POST', ...(as ? { as } : {}), ...(body !== undefined ? { json: body } : {}) });
const decide = (as: TestSession | null, id: string, body: unknown) => send(`/api/proposals/${id}/decision`, { method: 'POST', ...(as ? { as } : {}), json: body });
const getOne = async (id: string) => (await send(`/api/proposals/${id}`)).json();
const flagCount = async (id: string) => (await srv.db.prepare('SELECT COUNT(*) FROM proposal_flags WHERE proposal_id = ?').pluck().get(id)) as number;
const notificationsOf = async (as: TestSession) => (await (await send('/api/notifications?limit=200', { as })).json()).items as { kind: string; subject_id: string; title: string }[];

describe('creating proposals', () => {
  it('files each kind with its payload, pending, evidence with empty community flags', async () => {
    const p = await propose(ana);
    expect(p).toMatchObject({
      kind: 'tag_correction',
      status: 'pending',
      title: 'Tag the video as a case study',
      target: { type: 'video', id: video.video_id },
      payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'], remove: [] },
      confidence: 0.5,
      source: 'user',
      created_by: ana.userId,
      decided_by: null,
      decided_at: null,
      evidence: { rationale: 'It describes one company in detail.', community_flags: { count: 0, threshold: THRESHOLD, flags: [] } },
    });
    expect(p.proposal_id).toMatch(/^prp_/);
    const link = await propose(ana, { kind: 'link_add', title: 'Cite the video', payload: { concept: concept.slug, link: { type: 'video', id: video.video_id } } });
    expect(link.target).toEqual({ type: 'knowledge', id: concept.slug });
    const web = await propose(ana, { kind: 'link_add', title: 'Cite a paper', payload: { concept: concept.slug, link: { type: 'web_page', url: 'https://example.org/paper', title: 'A paper' } } });
    expect(web.payload.link).toEqual({ type: 'web_page', url: 'https://example.org/paper', title: 'A paper' });
    const stub = await propose(ana, {
      kind: 'concept_stub',
      title: 'A concept on claims automation',
      payload: { slug: 'claims-automation', title: 'Claims automation', summary: 'Handling insurance claims with AI agents.', sources: [{ type: 'video', id: video.video_id }] },
    });
    expect(stub.target).toEqual({ type: 'knowledge', id: 'claims-automation' });
    // Who proposed is recorded in the audit log too (as a pseudonym).
    const events = await (await send(`/api/audit?kind=proposal.create&subject_id=${p.proposal_id}`)).json();
    expect(events.items).toHaveLength(1);
    expect(events.items[0].data).toMatchObject({ kind: 'tag_correction', source: 'user', target_type: 'video' });
  });

  it('answers 404 for targets that do not exist and 409 for a concept that does', async () => {
    for (const body of [
      { ...tagFix(), payload: { target: { type: 'video', id: 'nope-nope-nope' }, add: ['x'] } },
      { kind: 'link_add', title: 't', payload: { concept: 'no-such-concept', link: { type: 'video', id: video.video_id } } },
      { kind: 'link_add', title: 't', payload: { concept: concept.slug, link: { type: 'essay', id: 'no-such-essay' } } },
      { kind: 'essay_promotion', title: 't', payload: { post_id: 'pst_nope' } },
    ]) {
      expect((await send('/api/proposals', { method: 'POST', as: ana, json: body })).status, JSON.stringify(body)).toBe(404);
    }
    const dup = await send('/api/proposals', { method: 'POST', as: ana, json: { kind: 'concept_stub', title: 't', payload: { slug: concept.slug, title: 'x', summary: 'y', sources: [{ type: 'video', id: video.video_id }] } } });
    expect(dup.status).toBe(409);
  });

  it('needs a signed-in caller and validates every field (422)', async () => {
    expect((await send('/api/proposals', { method: 'POST', json: tagFix() })).status).toBe(401);
    const cases: [unknown, string][] = [
      [{ ...tagFix(), kind: 'rename_everything' }, 'body.kind'],
      [{ ...tagFix(), title: '' }, 'body.title'],
      [{ ...tagFix(), title: 'x'.repeat(201) }, 'body.title'],
      [{ ...tagFix(), payload: { target: { type: 'video', id: video.video_id } } }, 'body.payload.add'],
      [{ ...tagFix(), payload: { target: { type: 'video', id: video.video_id }, add: ['Not A Tag'] } }, 'body.payload.add.0'],
      [{ ...tagFix(), payload: { target: { type: 'video', id: video.video_id }, add: ['a'], remove: ['a'] } }, 'body.payload.remove'],
      [{ ...tagFix(), payload: { target: { type: 'channel', id: 'x' }, add: ['a'] } }, 'body.payload.target.type'],
      [{ ...tagFix(), evidence: { community_flags: { count: -5 } } }, 'body.evidence.community_flags'],
      [{ ...tagFix(), evidence: { rationale: 'x'.repeat(2001) } }, 'body.evidence.rationale'],
      [{ ...tagFix(), confidence: 1 }, 'body.confidence'],
      [{ kind: 'link_add', title: 't', payload: { concept: 'Bad Slug', link: { type: 'video', id: video.video_id } } }, 'body.payload.concept'],
      [{ kind: 'link_add', title: 't', payload: { concept: concept.slug, link: { type: 'web_page', url: 'ftp://example.org/x', title: 'x' } } }, 'body.payload.link.url'],
      [{ kind: 'concept_stub', title: 't', payload: { slug: 'new-one', title: 'x', summary: 'y', sources: [] } }, 'body.payload.sources'],
      [{ kind: 'essay_promotion', title: 't', payload: { post_id: 'pst_x', lang: 'de' } }, 'body.payload.lang'],
    ];
    for (const [body, loc] of cases) {
      const res = await send('/api/proposals', { method: 'POST', as: ana, json: body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      const detail = (await res.json()).detail as { loc: (string | number)[] }[];
      expect(detail.map((d) => d.loc.join('.')), JSON.stringify(body)).toContain(loc);
    }
    expect((await send('/api/proposals', { method: 'POST', as: ana, body: '{not json', headers: { 'Content-Type': 'application/json' } })).status).toBe(422);
  });

  it('is a plain data function for the pipeline, with its own checks', async () => {
    const p = await createProposal(srv.db, srv.audit, {
      kind: 'link_add',
      title: 'Pipeline: cite a digest',
      payload: { concept: concept.slug, link: { type: 'digest', id: snap.digests[0].date } },
      evidence: { model: 'linker-v1', community_flags: 'ignored' },
      confidence: 0.91,
      source: 'pipeline',
    });
    expect(p).toMatchObject({ status: 'pending', source: 'pipeline', created_by: null, confidence: 0.91, target_type: 'knowledge' });
    expect(JSON.parse(p.evidence)).toEqual({ model: 'linker-v1' });
    await expect(createProposal(srv.db, srv.audit, { kind: 'link_add', title: 'x', payload: { concept: 'Bad Slug' }, source: 'pipeline' })).rejects.toThrow(/invalid link_add payload/);
    await expect(createProposal(srv.db, srv.audit, { kind: 'tag_correction', title: 'x', payload: tagFix().payload, confidence: 1.5, source: 'pipeline' })).rejects.toThrow(/confidence/);
  });
});

describe('listing proposals', () => {
  it('lists pending by default, most confident first, then newest; decided and all buckets; kind filter', async () => {
    const mk = (title: string, confidence: number) =>
      createProposal(srv.db, srv.audit, { kind: 'tag_correction', title, payload: { target: { type: 'video', id: video.video_id }, add: ['ordering'] }, confidence, source: 'pipeline' });
    const low = await mk('order low', 0.1);
    const highOld = await mk('order high old', 0.99);
    await new Promise((r) => setTimeout(r, 5));
    const highNew = await mk('order high new', 0.99);
    const list = await (await send('/api/proposals?limit=100')).json();
    expect(list).toMatchObject({ limit: 100, offset: 0 });
    const ids = list.items.map((p: { proposal_id: string }) => p.proposal_id);
    expect(ids.indexOf(highNew.id)).toBeLessThan(ids.indexOf(highOld.id));
    expect(ids.indexOf(highOld.id)).toBeLessThan(ids.indexOf(low.id));
    const confidences = list.items.map((p: { confidence: number }) => p.confidence);
    expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
    expect(list.items.every((p: { status: string }) => p.status === 'pending')).toBe(true);
    expect(list.total).toBe(list.items.length);

    const page = await (await send('/api/proposals?limit=2&offset=1')).json();
    expect(page.items.map((p: { proposal_id: string }) => p.proposal_id)).toEqual(ids.slice(1, 3));
    expect(page).toMatchObject({ total: list.total, limit: 2, offset: 1 });

    const rejected = await decide(mod, low.id, { action: 'reject', note: 'not useful' });
    expect(rejected.status).toBe(200);
    const decided = await (await send('/api/proposals?status=decided&limit=100')).json();
    expect(decided.items.map((p: { proposal_id: string }) => p.proposal_id)).toContain(low.id);
    expect(decided.items.every((p: { status: string }) => ['accepted', 'rejected', 'applied', 'superseded'].includes(p.status))).toBe(true);
    const all = await (await send('/api/proposals?status=all&limit=100')).json();
    expect(all.total).toBe(list.total - 1 + decided.total);
    const links = await (await send('/api/proposals?status=all&kind=link_add&limit=100')).json();
    expect(links.total).toBeGreaterThan(0);
    expect(links.items.every((p: { kind: string }) => p.kind === 'link_add')).toBe(true);
  });

  it('answers one proposal by id, 404 for an unknown one', async () => {
    const p = await propose(bor, tagFix('one by id'));
    expect(await getOne(p.proposal_id)).toEqual(p);
    expect((await send('/api/proposals/prp_unknown')).status).toBe(404);
  });

  it('rejects every out-of-bounds parameter with 422', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x', 'status=open', 'status=', 'kind=rename']) {
      const res = await send(`/api/proposals?${q}`);
      expect(res.status, q).toBe(422);
      expect((await res.json()).detail[0].loc[0]).toBe('query');
    }
    for (const q of ['limit=1', 'limit=100', 'offset=0', 'status=pending', 'status=decided', 'status=all', 'kind=concept_stub', 'kind=']) {
      expect((await send(`/api/proposals?${q}`)).status, q).toBe(200);
    }
  });
});

describe('community flags', () => {
  it('adds a flag to evidence.community_flags (reason and time, never who) and refuses a second flag with 409', async () => {
    const p = await propose(ana, tagFix('to be flagged'));
    const first = await flag(bor, p.proposal_id, { reason: 'Wrong tag' });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ proposal_id: p.proposal_id, flags: 1, threshold: THRESHOLD, status: 'pending', decided_by: null });
    const after = await getOne(p.proposal_id);
    expect(after.evidence.community_flags).toMatchObject({ count: 1, threshold: THRESHOLD, flags: [{ reason: 'Wrong tag' }] });
    expect(JSON.stringify(after)).not.toContain(bor.userId);

    const auditBefore = await srv.audit.size();
    const again = await flag(bor, p.proposal_id, { reason: 'Still wrong' });
    expect(again.status).toBe(409);
    expect(await getOne(p.proposal_id)).toEqual(after);
    expect(await flagCount(p.proposal_id)).toBe(1);
    expect(await srv.audit.size()).toBe(auditBefore);

    // No body, an empty object and an empty reason are all a flag without a reason.
    expect((await flag(cid, p.proposal_id)).status).toBe(200);
    expect((await getOne(p.proposal_id)).evidence.community_flags.flags[1].reason).toBeNull();
  });

  it('rejects at AUTO_REJECT_FLAG_THRESHOLD with decided_by null, applies nothing and tells the author', async () => {
    const p = await propose(ana, tagFix('flag me to death'));
    for (const [i, who] of [bor, cid].entries()) {
      const r = await (await flag(who, p.proposal_id, {})).json();
      expect(r).toMatchObject({ flags: i + 1, status: 'pending' });
    }
    const last = await flag(dan, p.proposal_id, { reason: 'spam' });
    expect(last.status).toBe(200);
    expect(await last.json()).toEqual({ proposal_id: p.proposal_id, flags: THRESHOLD, threshold: THRESHOLD, status: 'rejected', decided_by: null });
    const rejected = await getOne(p.proposal_id);
    expect(rejected).toMatchObject({ status: 'rejected', decided_by: null, applied: null, applied_at: null });
    expect(rejected.decided_at).toBeTruthy();
    expect(rejected.decision_note).toMatch(/community flags/);
    expect(rejected.evidence.community_flags.count).toBe(THRESHOLD);
    const decided = await (await send('/api/proposals?status=decided&limit=100')).json();
    expect(decided.items.find((x: { proposal_id: string }) => x.proposal_id === p.proposal_id)).toMatchObject({ status: 'rejected', decided_by: null });

    const events = (await (await send(`/api/audit?subject_type=proposal&subject_id=${p.proposal_id}`)).json()).items as { kind: string; actor: string; data: Record<string, unknown> }[];
    expect(events.map((e) => e.kind)).toEqual(['proposal.create', 'proposal.flag', 'proposal.flag', 'proposal.flag', 'proposal.auto_reject']);
    expect(events.at(-1)).toMatchObject({ actor: 'system', data: { from: 'pending', to: 'rejected', flags: THRESHOLD, threshold: THRESHOLD } });

    const note = (await notificationsOf(ana)).find((n) => n.subject_id === p.proposal_id);
    expect(note).toMatchObject({ kind: 'proposal_decision' });
    expect(note!.title).toMatch(/rejected by community flags/);
  });

  it('refuses to flag a decided proposal (409), an unknown one (404), anonymously (401), or with a long reason (422)', async () => {
    const p = await propose(ana, tagFix('decided before flags'));
    expect((await decide(mod, p.proposal_id, { action: 'accept' })).status).toBe(200);
    const res = await flag(bor, p.proposal_id, { reason: 'late' });
    expect(res.status).toBe(409);
    expect((await res.json()).detail).toMatch(/accepted/);
    expect(await flagCount(p.proposal_id)).toBe(0);
    expect((await flag(bor, 'prp_nothing')).status).toBe(404);
    expect((await flag(null, p.proposal_id)).status).toBe(401);
    const long = await flag(bor, p.proposal_id, { reason: 'x'.repeat(501) });
    expect(long.status).toBe(422);
    expect((await long.json()).detail[0].loc).toEqual(['body', 'reason']);
    expect((await flag(bor, p.proposal_id, { reason: 'ok', who: 'me' })).status).toBe(422);
  });

  it('rolls the whole flag back when its audit event cannot be written', async () => {
    const p = await propose(ana, tagFix('audit failure'));
    const before = await getOne(p.proposal_id);
    const restoreFlag = await failAuditEvents(srv.db, 'proposal.flag');
    try {
      expect((await flag(bor, p.proposal_id, { reason: 'x' })).status).toBe(500);
      expect(await flagCount(p.proposal_id)).toBe(0);
      expect(await getOne(p.proposal_id)).toEqual(before);
    } finally {
      await restoreFlag();
    }
    // The threshold write too: the auto-reject event failing undoes the last flag and the rejection.
    expect((await flag(bor, p.proposal_id)).status).toBe(200);
    expect((await flag(cid, p.proposal_id)).status).toBe(200);
    const restoreReject = await failAuditEvents(srv.db, 'proposal.auto_reject');
    const notesBefore = (await notificationsOf(ana)).length;
    try {
      expect((await flag(dan, p.proposal_id)).status).toBe(500);
      expect(await flagCount(p.proposal_id)).toBe(2);
      expect((await getOne(p.proposal_id)).status).toBe('pending');
      expect((await notificationsOf(ana)).length).toBe(notesBefore);
    } finally {
      await restoreReject();
    }
    expect(await (await flag(dan, p.proposal_id)).json()).toMatchObject({ flags: 3, status: 'rejected', decided_by: null });
  });
});

describe('moderator decisions', () => {
  it('needs a moderator: 401 anonymous, 403 for other people', async () => {
    const p = await propose(ana, tagFix('permissions'));
    expect((await decide(null, p.proposal_id, { action: 'accept' })).status).toBe(401);
    const res = await decide(ana, p.proposal_id, { action: 'accept' });
    expect(res.status).toBe(403);
    expect((await getOne(p.proposal_id)).status).toBe('pending');
  });

  it('moves along pending → accepted → applied and refuses other moves with 409', async () => {
    const p = await propose(ana, { kind: 'link_add', title: 'Add a link', payload: { concept: concept.slug, link: { type: 'video', id: video.video_id } } });
    const accepted = await decide(mod, p.proposal_id, { action: 'accept', note: 'Good catch' });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ status: 'accepted', decided_by: mod.userId, decision_note: 'Good catch', applied: null });
    const twice = await decide(mod, p.proposal_id, { action: 'accept' });
    expect(twice.status).toBe(409);
    expect((await twice.json()).detail).toMatch(/allowed: reject, apply, supersede/);
    const applied = await (await decide(mod, p.proposal_id, { action: 'apply' })).json();
    expect(applied).toMatchObject({ status: 'applied', decided_by: mod.userId, applied: { content_changed: true, files: [`knowledge/${concept.slug}.md`] } });
    expect(applied.applied.note).toContain(`Added the source video ${video.video_id}`);
    expect(applied.applied_at).toBeTruthy();
    for (const action of ['accept', 'reject', 'apply']) {
      const res = await decide(mod, p.proposal_id, { action });
      expect(res.status, action).toBe(409);
      expect((await res.json()).detail).toMatch(/final/);
    }
    const kinds = (await (await send(`/api/audit?subject_type=proposal&subject_id=${p.proposal_id}`)).json()).items.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['proposal.create', 'proposal.accept', 'proposal.apply']);
    const notes = (await notificationsOf(ana)).filter((n) => n.subject_id === p.proposal_id).map((n) => n.title);
    expect(notes.some((t) => /accepted/.test(t))).toBe(true);
    expect(notes.some((t) => /applied/.test(t))).toBe(true);
  });

  it('cannot apply what is not accepted; rejects and supersedes', async () => {
    const a = await propose(ana, tagFix('apply too early'));
    expect((await decide(mod, a.proposal_id, { action: 'apply' })).status).toBe(409);
    const b = await propose(ana, tagFix('replacement'));
    const noTarget = await decide(mod, a.proposal_id, { action: 'supersede' });
    expect(noTarget.status).toBe(422);
    expect((await noTarget.json()).detail[0].loc).toEqual(['body', 'superseded_by']);
    expect((await decide(mod, a.proposal_id, { action: 'accept', superseded_by: b.proposal_id })).status).toBe(422);
    expect((await decide(mod, a.proposal_id, { action: 'supersede', superseded_by: 'prp_ghost' })).status).toBe(404);
    expect((await decide(mod, a.proposal_id, { action: 'supersede', superseded_by: a.proposal_id })).status).toBe(404);
    const sup = await (await decide(mod, a.proposal_id, { action: 'supersede', superseded_by: b.proposal_id })).json();
    expect(sup).toMatchObject({ status: 'superseded', superseded_by: b.proposal_id, decided_by: mod.userId });
    const accepted = await (await decide(mod, b.proposal_id, { action: 'accept' })).json();
    expect(accepted.status).toBe('accepted');
    expect(await (await decide(mod, b.proposal_id, { action: 'reject', note: 'On second thought' })).json()).toMatchObject({ status: 'rejected', decided_by: mod.userId });
    for (const body of [{ action: 'approve' }, {}, { action: 'accept', note: 'x'.repeat(1001) }, { action: 'accept', extra: 1 }]) {
      expect((await decide(mod, b.proposal_id, body)).status, JSON.stringify(body)).toBe(422);
    }
    expect((await decide(mod, 'prp_ghost', { action: 'accept' })).status).toBe(404);
  });

  it('applying a concept_stub publishes its concept file in content/', async () => {
    const p = await propose(bor, {
      kind: 'concept_stub',
      title: 'Concept: accounts payable automation',
      payload: {
        slug: 'accounts-payable-automation',
        title: 'Accounts payable automation',
        summary: 'Agents that match invoices to orders and pay them without a person touching most of them.',
        tags: ['finance'],
        sources: [{ type: 'video', id: video.video_id }],
        body: `Seen in [the case](/videos/${video.video_id}).`,
      },
    });
    await decide(mod, p.proposal_id, { action: 'accept' });
    const applied = await (await decide(mod, p.proposal_id, { action: 'apply' })).json();
    expect(applied.applied).toMatchObject({ content_changed: true, files: ['knowledge/accounts-payable-automation.md'] });
    const loaded = loadSnapshot(contentDir).conceptsBySlug.get('accounts-payable-automation');
    expect(loaded).toMatchObject({ title: 'Accounts payable automation', draft: false, tags: ['finance'] });
    expect(fs.existsSync(path.join(fixtureContent(), 'knowledge', 'accounts-payable-automation.md'))).toBe(false);
  });

  it('is documented in /openapi.json', async () => {
    const doc = await (await send('/openapi.json')).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/proposals', '/api/proposals/{proposal_id}', '/api/proposals/{proposal_id}/flag', '/api/proposals/{proposal_id}/decision']));
    expect(doc.paths['/api/proposals/{proposal_id}/decision'].post.description).toMatch(/accept pending→accepted/);
    for (const name of ['PublicProposalList', 'ProposalFlagIn', 'ProposalFlagOut', 'ProposalDecisionIn', 'ProposalCreate']) expect(doc.components.schemas).toHaveProperty(name);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a user has used up their writes', async () => {
    const small = await startTestServer({ contentDir, env: { WRITE_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const s = sender(small);
      const eve = await sessionFor(small, 'eve@example.org');
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        last = await s('/api/proposals', { method: 'POST', as: eve, json: tagFix(`rate ${i}`) });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, 429]);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await small.stop();
    }
  });
});
