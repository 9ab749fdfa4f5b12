// Notifications: filters, unread count, read, dismiss, and only the owner sees or changes them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { fixtureContent } from '../../helpers/content.ts';

const video = loadSnapshot(fixtureContent()).videos[0].video_id;
let srv: TestServer;
let send: Send;
let owner: TestSession, other: TestSession;

beforeAll(async () => {
  srv = await startTestServer();
  send = sender(srv);
  owner = await sessionFor(srv, 'owner@example.org', 'Owner');
  other = await sessionFor(srv, 'other@example.org', 'Other');
  await send('/api/account/me', { method: 'PATCH', as: owner, json: { handle: 'owner' } });
  const parent = await (await send('/api/comments', { method: 'POST', as: owner, json: { entity_type: 'video', entity_id: video, body: 'Question?' } })).json();
  await send('/api/comments', { method: 'POST', as: other, json: { entity_type: 'video', entity_id: video, body: 'An answer', parent_id: parent.comment_id } });
  await send('/api/comments', { method: 'POST', as: other, json: { entity_type: 'video', entity_id: video, body: 'cc @owner' } });
  await send('/api/comments', { method: 'POST', as: other, json: { entity_type: 'video', entity_id: video, body: 'and again @owner' } });
});
afterAll(() => srv.stop());

const list = async (q = '') => (await send(`/api/notifications${q}`, { as: owner })).json();

describe('notifications', () => {
  it('lists newest first with filters and an unread count', async () => {
    const all = await list();
    expect(all.total).toBe(3);
    expect(all.items.map((n: { kind: string }) => n.kind)).toEqual(['mention', 'mention', 'reply']);
    expect((await list('?filter=mentions')).total).toBe(2);
    expect((await list('?filter=system')).total).toBe(0);
    expect((await list('?filter=')).total).toBe(3);
    expect(await (await send('/api/notifications/unread', { as: owner })).json()).toEqual({ unread: 3 });
    expect((await list('?limit=1&offset=1')).items).toHaveLength(1);
  });

  it('marks one read, then all; dismissed ones are hidden unless asked for', async () => {
    const [first, second] = (await list()).items;
    expect((await send(`/api/notifications/${first.id}/read`, { method: 'POST', as: owner })).status).toBe(200);
    expect((await list('?filter=unread')).total).toBe(2);
    expect((await send(`/api/notifications/${second.id}`, { method: 'DELETE', as: owner })).status).toBe(204);
    expect((await list()).total).toBe(2);
    const withDismissed = await list('?include_dismissed=true');
    expect(withDismissed.total).toBe(3);
    expect(withDismissed.items.find((n: { id: string }) => n.id === second.id).dismissed).toBe(true);
    expect(await (await send('/api/notifications/mark-all-read', { method: 'POST', as: owner })).json()).toEqual({ marked: 1 });
    expect(await (await send('/api/notifications/unread', { as: owner })).json()).toEqual({ unread: 0 });
  });

  it('keeps them to their owner', async () => {
    const mine = (await list('?include_dismissed=true')).items[0];
    expect((await send(`/api/notifications/${mine.id}/read`, { method: 'POST', as: other })).status).toBe(404);
    expect((await send(`/api/notifications/${mine.id}`, { method: 'DELETE', as: other })).status).toBe(404);
    expect((await (await send('/api/notifications', { as: other })).json()).items.some((n: { id: string }) => n.id === mine.id)).toBe(false);
    expect((await send('/api/notifications')).status).toBe(401);
    expect((await send(`/api/notifications/${randomUUID()}/read`, { method: 'POST', as: owner })).status).toBe(404);
  });

  it('validates its parameters', async () => {
    for (const q of ['?limit=0', '?limit=201', '?offset=-1', '?filter=everything', '?include_dismissed=perhaps']) {
      expect((await send(`/api/notifications${q}`, { as: owner })).status, q).toBe(422);
    }
    expect((await send('/api/notifications/not-a-uuid/read', { method: 'POST', as: owner })).status).toBe(422);
  });
});
