// An example for every operation of /openapi.json, keyed as the catalogue is ("POST /api/comments"): the
// path and required query parameters, the request body and the success answer, by media type. The content
// reads take theirs from the content being served (api/content/examples.ts); the rest are here, written
// from real answers of this server. test/api/interop/typed-reads.test.ts checks that every operation has
// them and that each is valid against its schema: a schema change that an example no longer fits names it.

/** What an operation's example shows: parameters by name, and bodies by media type. */
export interface OperationExample {
  params?: Record<string, string | number | boolean>;
  request?: Record<string, unknown>;
  response?: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** Sets the example on the operation's parameters, request body and success answers (2xx) that have none. */
export function applyExample(op: { parameters?: Json[]; requestBody?: { content?: Record<string, Json> }; responses: Record<string, Json> }, ex: OperationExample): void {
  for (const p of op.parameters ?? []) {
    const value = ex.params?.[String(p.name)];
    if (value !== undefined && p.example === undefined) p.example = value;
  }
  for (const [mediaType, value] of Object.entries(ex.request ?? {})) {
    const media = op.requestBody?.content?.[mediaType];
    if (media && media.example === undefined) media.example = value;
  }
  for (const [mediaType, value] of Object.entries(ex.response ?? {})) {
    for (const [status, answer] of Object.entries(op.responses)) {
      const media = status.startsWith('2') ? (answer.content as Record<string, Json> | undefined)?.[mediaType] : undefined;
      if (media && media.example === undefined) media.example = value;
    }
  }
}

// ---- The people, items and credentials the examples share ----
const T0 = '2026-11-20T09:12:44.606Z';
const T1 = '2026-11-20T09:14:05.271Z';
const T2 = '2026-11-20T09:20:31.908Z';
const ALICE = { id: 'usr_qeq32m71z7', display_name: 'Alice Novak', handle: 'alicenovak', bio: 'Writes about AI in the public sector.', role: 'user', created_at: T0 };
const BOB = { id: 'usr_m4y54nd8fj', display_name: 'Bob Kranjc', handle: 'bobkranjc', bio: '', role: 'user', created_at: T0 };
const MIA = { id: 'usr_b7kwy0w9xy', display_name: 'Mia Moderator', handle: 'miamoderator' };
const short = (u: { id: string; display_name: string; handle: string }) => ({ id: u.id, display_name: u.display_name, handle: u.handle });
const VIDEO = '1iL8WhMgIDR';
const COMMENT_ID = 'cmt_skqcvs50w7';
const NO_REACTIONS = { like: 0, insightful: 0, agree: 0, disagree: 0, question: 0 };
const COMMENT = {
  comment_id: COMMENT_ID,
  entity_type: 'video',
  entity_id: VIDEO,
  parent_id: null,
  author: short(ALICE),
  body: 'The part on procurement rules is the most useful.',
  hidden: false,
  deleted: false,
  edited: false,
  reactions: NO_REACTIONS,
  mine: [],
  reply_count: 1,
  created_at: T1,
  updated_at: T1,
  etag: `"${COMMENT_ID}.4c515d817a865c9b"`,
};
const REPLY = { ...COMMENT, comment_id: 'cmt_r02yspgxt9', parent_id: COMMENT_ID, author: short(BOB), body: '@alicenovak agreed, and it applies to municipalities too.', reply_count: 0, etag: '"cmt_r02yspgxt9.d4829c50bd21d70d"' };
const POST_ID = 'pst_ns3wt9scwx';
const POST_SLUG = 'what-we-learnt-buying-an-ai-service';
const POST = {
  post_id: POST_ID,
  slug: POST_SLUG,
  title: 'What we learnt buying an AI service',
  summary: 'Five clauses every contract needs.',
  tags: ['procurement', 'governance'],
  lang: 'en',
  status: 'draft',
  author: ALICE,
  co_admins: [],
  votes: 0,
  essay_revision: 1,
  essay_etag: `"${POST_ID}.1"`,
  etag: `"${POST_ID}.7f8c6c18a2c119ac"`,
  url: `/posts/${POST_SLUG}`,
  api_url: `/api/posts/${POST_SLUG}`,
  created_at: T1,
  updated_at: T1,
  submitted_at: null,
  published_at: null,
};
const PUBLISHED = { ...POST, status: 'published', co_admins: [BOB.id], votes: 3, essay_revision: 2, essay_etag: `"${POST_ID}.2"`, etag: `"${POST_ID}.0b7e2d41c5a99f13"`, submitted_at: T2, published_at: T2 };
const ESSAY_BODY = '# Five clauses\n\n1. Audit rights.\n2. An exit plan.\n3. Where the data lives.\n4. Who answers for the model.\n5. What happens to the data at the end.';
const PROPOSAL_ID = 'prp_w16fvtp0c0';
const PROPOSAL = {
  proposal_id: PROPOSAL_ID,
  kind: 'link_add',
  status: 'pending',
  title: 'Cite the procurement talk',
  target: { type: 'knowledge', id: 'ai-procurement' },
  payload: { concept: 'ai-procurement', link: { type: 'video', id: VIDEO } },
  confidence: 0.5,
  evidence: { rationale: 'It is the clearest source on this.', community_flags: { count: 0, threshold: 3, flags: [] } },
  source: 'user',
  created_by: ALICE.id,
  decided_by: null,
  decision_note: null,
  superseded_by: null,
  created_at: T1,
  decided_at: null,
  applied_at: null,
  applied: null,
};
const NOTIFICATION_ID = '3057e8bd-b3f5-4800-a7d7-4afd45c6da23';
const API_KEY = { id: 'key_wb2n8s29kx', name: 'laptop', hint: 'kb_…bTiY', source: 'account', created_at: T1, last_used_at: null, expires_at: '2027-02-18T09:14:05.271Z' };
const DEVICE_CODE = 'Y7TCN1nidaimv6sqslJS0qoZXhNo5ylTFfwjGfVV6u4';
const USER_CODE = 'JJBZ-SWCF';
const CLIENT_ID = 'client_aea0mvzhwwpe7gp4';
const BLOB = '8f94139338f9404f26296befa88755fc2598c289';
const COMMIT = '2b7c4d1e9a0f3b5c6d7e8f9a0b1c2d3e4f5a6b7c';
const NOTE = 'reading-list';
const HIT = (base: string) => ({
  type: 'knowledge',
  id: 'ai-procurement',
  title: 'AI procurement',
  url: '/knowledge/ai-procurement',
  api_url: '/api/knowledge/ai-procurement',
  page_url: `${base}/knowledge/ai-procurement`,
  lang: 'en',
  date: null,
  snippet: 'AI <mark>procurement</mark> adapts purchasing to systems that change over time and may process sensitive data in unexpected ways…',
  score: 0.25,
  draft: false,
});
const VIDEO_HIT = (base: string) => ({
  type: 'video',
  id: 'EDwBXAW-o0Z',
  title: 'Procurement automation at a public hospital network',
  url: '/videos/EDwBXAW-o0Z',
  api_url: '/api/videos/EDwBXAW-o0Z',
  page_url: `${base}/videos/EDwBXAW-o0Z`,
  lang: 'en',
  date: '2026-11-16',
  snippet: '…Public <mark>procurement</mark> rules set hard limits: every step involving supplier selection or contract award stayed fully human…',
  score: 0.214286,
  draft: false,
});
const json = (value: unknown) => ({ 'application/json': value });
const form = (value: Record<string, string>) => ({ 'application/x-www-form-urlencoded': value });

/** The examples of every operation but the content reads, for a server at `base` (its BASE_URL). */
export function staticExamples(base: string): Record<string, OperationExample> {
  return {
    ...searchExamples(base),
    ...accountExamples(base),
    ...notificationExamples(),
    ...commentExamples(),
    ...proposalAndSourceExamples(),
    ...postExamples(),
    ...personalKnowledgeExamples(base),
    ...deviceFlowExamples(base),
    ...oauthExamples(base),
    ...mcpAndChatExamples(base),
    ...auditExamples(base),
  };
}

/** Search and related items. */
function searchExamples(base: string): Record<string, OperationExample> {
  const related = { response: json({ query: 'Transparency duties under Article 50: labelling AI-generated content at work', mode: 'related', total: 2, item: { type: 'video', id: VIDEO, title: 'Transparency duties under Article 50: labelling AI-generated content at work', url: `/videos/${VIDEO}`, page_url: `${base}/videos/${VIDEO}` }, hits: [VIDEO_HIT(base), HIT(base)], warnings: [] }) };
  return {
    'GET /api/search': { params: { q: 'procurement' }, response: json({ query: 'procurement', mode: 'hybrid', total: 24, total_exact: true, embedder: { name: 'builtin', model: 'lsa', dimension: 128 }, hits: [HIT(base), VIDEO_HIT(base)], warnings: [] }) },
    'GET /api/videos/{video_id}/related': related,
    'GET /api/knowledge/{slug}/related': related,
    'GET /api/essays/{slug}/related': related,
    'GET /api/digests/{date}/related': related,
    'GET /api/personas/{persona_id}/related': related,
    'GET /api/posts/{post_id}/related': { ...related, params: { post_id: POST_ID } },
  };
}

/** Sign-in, the account, its API keys, sessions and OAuth clients, public profiles. */
function accountExamples(base: string): Record<string, OperationExample> {
  return {
    'GET /api/auth/me': { response: json({ authenticated: true, via: 'session', user: short(ALICE), scopes: null, audience: null }) },
    'POST /api/auth/logout': { response: json({ ok: true, end_session_url: `${base}/idp/session/end?post_logout_redirect_uri=${encodeURIComponent(`${base}/`)}&client_id=kb-web` }) },
    'GET /api/account/me': { response: json({ ...ALICE, email: 'alice@example.com', updated_at: T1, last_login_at: T0 }) },
    'PATCH /api/account/me': { request: json({ bio: 'Writes about AI in the public sector.' }), response: json({ ...ALICE, email: 'alice@example.com', updated_at: T1, last_login_at: T0 }) },
    'GET /api/account/api-keys': { response: json([API_KEY]) },
    'POST /api/account/api-keys': { request: json({ name: 'laptop', expires_in_days: 90 }), response: json({ ...API_KEY, key: 'kb_Sw_XJsPiFOh1yFC5GHPNxi8eCChCK8wZcsfMU_5bTiY' }) },
    'DELETE /api/account/api-keys/{key_id}': { params: { key_id: API_KEY.id } },
    'GET /api/account/sessions': { response: json([{ id: '90bed81e187d50bc', device: 'Firefox on Linux', user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', created_at: T0, last_seen_at: T2, expires_at: '2026-12-20T09:12:44.611Z', current: true }]) },
    'DELETE /api/account/sessions/{session_id}': { params: { session_id: '90bed81e187d50bc' } },
    'GET /api/users/{user_id}': { params: { user_id: ALICE.id }, response: json(ALICE) },
    'GET /api/auth/idp/login': { params: { next: '/device?user_code=JJBZ-SWCF' } },
    'GET /api/auth/idp/callback': { params: { code: 'a1b2c3d4e5f6', state: 'Tq3pX8wZ0vL5nR2s' } },
    'GET /api/account/oauth-clients': { response: json([{ client_id: CLIENT_ID, client_name: 'My agent', client_uri: null, scopes: ['read', 'write'], authorized_at: T1, last_used_at: T2 }]) },
    'DELETE /api/account/oauth-clients/{client_id}': { params: { client_id: CLIENT_ID } },
  };
}

/** Notifications. */
function notificationExamples(): Record<string, OperationExample> {
  return {
    'GET /api/notifications': {
      response: json({
        total: 1,
        limit: 50,
        offset: 0,
        items: [{ id: NOTIFICATION_ID, kind: 'reply', category: 'activity', title: 'Bob Kranjc replied to your comment', body: REPLY.body, link: `/videos/${VIDEO}#comment-${REPLY.comment_id}`, actor_id: BOB.id, subject_type: 'comment', subject_id: REPLY.comment_id, created_at: T2, read: false, dismissed: false }],
      }),
    },
    'GET /api/notifications/unread': { response: json({ unread: 1 }) },
    'POST /api/notifications/mark-all-read': { response: json({ marked: 1 }) },
    'POST /api/notifications/{notification_id}/read': { params: { notification_id: NOTIFICATION_ID }, response: json({ id: NOTIFICATION_ID, read: true }) },
    'DELETE /api/notifications/{notification_id}': { params: { notification_id: NOTIFICATION_ID } },
  };
}

/** Comments, reactions and moderation. */
function commentExamples(): Record<string, OperationExample> {
  return {
    'GET /api/comments': { params: { entity_type: 'video', entity_id: VIDEO }, response: json({ total: 2, limit: 50, offset: 0, items: [COMMENT, REPLY] }) },
    'POST /api/comments': { request: json({ entity_type: 'video', entity_id: VIDEO, body: COMMENT.body }), response: json({ ...COMMENT, reply_count: 0 }) },
    'GET /api/comments/create': {
      params: { entity_type: 'video', entity_id: VIDEO, body: 'Thanks for the summary.', idempotency_key: '3f1c2a9e-8d4b-4c1e-9a7f-2b6d5e8c0a13' },
      response: json({ ...COMMENT, comment_id: 'cmt_07jqaws5d5', author: short(BOB), body: 'Thanks for the summary.', reply_count: 0, etag: '"cmt_07jqaws5d5.32fafff352a3e53e"' }),
    },
    'GET /api/comments/{comment_id}': { params: { comment_id: COMMENT_ID }, response: json(COMMENT) },
    'PATCH /api/comments/{comment_id}': {
      params: { comment_id: COMMENT_ID },
      request: json({ body: 'The part on procurement rules is the most useful (from 12:40).' }),
      response: json({ ...COMMENT, body: 'The part on procurement rules is the most useful (from 12:40).', edited: true, updated_at: T2, etag: `"${COMMENT_ID}.8a2648b71090ab9b"` }),
    },
    'DELETE /api/comments/{comment_id}': { params: { comment_id: COMMENT_ID } },
    'POST /api/comments/{comment_id}/hide': { params: { comment_id: COMMENT_ID }, response: json({ ...COMMENT, hidden: true, updated_at: T2, etag: `"${COMMENT_ID}.ca78c277813e5658"` }) },
    'POST /api/comments/{comment_id}/unhide': { params: { comment_id: COMMENT_ID }, response: json({ ...COMMENT, updated_at: T2, etag: `"${COMMENT_ID}.081a07d344c6d619"` }) },
    'POST /api/comments/{comment_id}/react': { params: { comment_id: COMMENT_ID }, request: json({ kind: 'insightful' }), response: json({ comment_id: COMMENT_ID, counts: { ...NO_REACTIONS, insightful: 1 }, mine: ['insightful'] }) },
    'DELETE /api/comments/{comment_id}/react/{kind}': { params: { comment_id: COMMENT_ID, kind: 'insightful' }, response: json({ comment_id: COMMENT_ID, counts: NO_REACTIONS, mine: [] }) },
    'GET /api/moderation/comments': {
      response: json({ total: 1, limit: 50, offset: 0, items: [{ comment_id: COMMENT_ID, entity_type: 'video', entity_id: VIDEO, entity_url: `/videos/${VIDEO}`, parent_id: null, author: short(ALICE), hidden_by: MIA, body: COMMENT.body, created_at: T1, updated_at: T2 }] }),
    },
  };
}

/** Proposals, sources and concept drafts. */
function proposalAndSourceExamples(): Record<string, OperationExample> {
  return {
    'GET /api/proposals': { response: json({ total: 1, limit: 20, offset: 0, items: [PROPOSAL] }) },
    'POST /api/proposals': {
      request: json({ kind: 'link_add', title: PROPOSAL.title, payload: PROPOSAL.payload, evidence: { rationale: PROPOSAL.evidence.rationale } }),
      response: json(PROPOSAL),
    },
    'GET /api/proposals/{proposal_id}': { params: { proposal_id: PROPOSAL_ID }, response: json(PROPOSAL) },
    'POST /api/proposals/{proposal_id}/flag': {
      params: { proposal_id: PROPOSAL_ID },
      request: json({ reason: 'The video says little about this concept.' }),
      response: json({ proposal_id: PROPOSAL_ID, flags: 1, threshold: 3, status: 'pending', decided_by: null }),
    },
    'POST /api/proposals/{proposal_id}/decision': {
      params: { proposal_id: PROPOSAL_ID },
      request: json({ action: 'accept', note: 'Useful.' }),
      response: json({ ...PROPOSAL, status: 'accepted', decided_by: MIA.id, decision_note: 'Useful.', decided_at: T2 }),
    },
    'GET /api/sources': {
      response: json({
        total: 86,
        limit: 50,
        offset: 0,
        items: [{ type: 'web_page', id: 'src_geajvwq8fd', title: 'Notes from a procurement workshop', url: null, date: '2026-11-20', excerpt: 'Public buyers asked for model cards, audit rights and an exit plan in every AI contract.', canonical_url: null, origin: 'pasted_text', created_at: T1 }],
      }),
    },
    'POST /api/sources': {
      request: json({ title: 'Notes from a procurement workshop', text: 'Public buyers asked for model cards, audit rights and an exit plan in every AI contract.' }),
      response: json({ type: 'web_page', id: 'src_geajvwq8fd', title: 'Notes from a procurement workshop', url: null, date: '2026-11-20', excerpt: 'Public buyers asked for model cards, audit rights and an exit plan in every AI contract.', canonical_url: null, origin: 'pasted_text', created_at: T1, text_length: 88 }),
    },
    'POST /api/sources/knowledge': {
      request: json({ topic: 'AI exit plans' }),
      response: json({
        slug: 'ai-exit-plans',
        file: 'knowledge/ai-exit-plans.md',
        ai_generated: true,
        generator: 'extractive',
        draft: {
          title: 'AI exit plans',
          summary: 'What a buyer of an AI service agrees up front about leaving it: data, models and the handover.',
          tags: ['procurement'],
          draft: true,
          sources: [{ type: 'web_page', url: 'https://example.org/exit-plans', title: 'Exit plans for AI services' }],
          related: ['ai-procurement'],
          body: 'An exit plan says how the data comes back and in what form.',
          markdown: '---\ntitle: AI exit plans\ndraft: true\n---\n\nAn exit plan says how the data comes back and in what form.\n',
        },
        proposal: { ...PROPOSAL, proposal_id: 'prp_6t1xk0d2ma', kind: 'concept_stub', title: 'AI exit plans', target: null, payload: { slug: 'ai-exit-plans' }, source: 'user' },
        warnings: [],
      }),
    },
  };
}

/** Posts, their essays, admins and votes. */
function postExamples(): Record<string, OperationExample> {
  return {
    'GET /api/posts': { response: json({ total: 1, limit: 20, offset: 0, items: [PUBLISHED] }) },
    'POST /api/posts': { request: json({ title: POST.title, summary: POST.summary, tags: ['procurement'], body: '# Five clauses\n\n1. Audit rights.' }), response: json({ ...POST, tags: ['procurement'] }) },
    'GET /api/posts/me': { response: json({ total: 1, limit: 50, offset: 0, items: [POST] }) },
    'GET /api/posts/{post_id}': { params: { post_id: POST_SLUG }, response: json(PUBLISHED) },
    'PATCH /api/posts/{post_id}': { params: { post_id: POST_ID }, request: json({ tags: ['procurement', 'governance'] }), response: json(POST) },
    'DELETE /api/posts/{post_id}': { params: { post_id: POST_ID } },
    'POST /api/posts/{post_id}/submit': { params: { post_id: POST_ID }, response: json({ ...POST, status: 'submitted', submitted_at: T2 }) },
    'POST /api/posts/{post_id}/review': { params: { post_id: POST_ID }, request: json({ action: 'publish', note: 'Thanks.' }), response: json(PUBLISHED) },
    'GET /api/moderation/posts': { response: json({ total: 1, limit: 50, offset: 0, items: [{ ...POST, status: 'submitted', submitted_at: T2 }] }) },
    'GET /api/posts/{post_id}/essay': { params: { post_id: POST_ID }, response: json({ post_id: POST_ID, revision: 2, body: ESSAY_BODY, etag: `"${POST_ID}.2"`, updated_at: T2, updated_by: ALICE.id }) },
    'PUT /api/posts/{post_id}/essay': { params: { post_id: POST_ID }, request: json({ body: ESSAY_BODY }), response: json({ post_id: POST_ID, revision: 2, body: ESSAY_BODY, etag: `"${POST_ID}.2"`, updated_at: T2, updated_by: ALICE.id }) },
    'GET /api/posts/{post_id}/admins': { params: { post_id: POST_ID }, response: json({ post_id: POST_ID, author: ALICE, admins: [BOB] }) },
    'POST /api/posts/{post_id}/admins': { params: { post_id: POST_ID }, request: json({ user_id: BOB.id }), response: json({ post_id: POST_ID, author: ALICE, admins: [BOB] }) },
    'DELETE /api/posts/{post_id}/admins/{user_id}': { params: { post_id: POST_ID, user_id: BOB.id } },
    'GET /api/posts/{post_id}/essay/votes': { params: { post_id: POST_ID }, response: json({ post_id: POST_ID, votes: 3, voted: true }) },
    'POST /api/posts/{post_id}/essay/vote': { params: { post_id: POST_ID }, response: json({ post_id: POST_ID, votes: 3, voted: true }) },
    'DELETE /api/posts/{post_id}/essay/vote': { params: { post_id: POST_ID } },
  };
}

/** Personal knowledge (the notes repository), and the content-changed request. */
function personalKnowledgeExamples(base: string): Record<string, OperationExample> {
  const noteWrite = { slug: NOTE, title: 'Reading list', blob: BLOB, commit: COMMIT, action: 'update', pushed: true };
  const status = { connected: true, status: 'ok', mode: 'embedded', host: 'this server', repository: 'alicenovak/notes', branch: 'main', since: T1, last_sync: T2, last_error: null, unpushed_commits: 0 };
  return {
    'GET /api/auth/vcs/begin': {
      response: json({
        authorize_url: `${base}/api/auth/vcs/embedded/authorize?response_type=code&client_id=kb-embedded-notes&redirect_uri=${encodeURIComponent(`${base}/api/auth/vcs/callback`)}&state=RrGg4KHPHrBPQQ-U8VQ3fjEw5QkRGYsJYZCm9fPYipQ&code_challenge=TZc2gkdI9acFzoGvqDMrosY5Iczs9PVLL13fGlNBppw&code_challenge_method=S256`,
        state: 'RrGg4KHPHrBPQQ-U8VQ3fjEw5QkRGYsJYZCm9fPYipQ',
        mode: 'embedded',
        host: 'this server',
        expires_in: 600,
      }),
    },
    'GET /api/auth/vcs/embedded/authorize': {
      params: { response_type: 'code', client_id: 'kb-embedded-notes', redirect_uri: `${base}/api/auth/vcs/callback`, state: 'RrGg4KHPHrBPQQ-U8VQ3fjEw5QkRGYsJYZCm9fPYipQ', code_challenge: 'TZc2gkdI9acFzoGvqDMrosY5Iczs9PVLL13fGlNBppw', code_challenge_method: 'S256' },
    },
    'GET /api/auth/vcs/callback': { params: { code: 'Splx1OBeZQQYbYS6WxSbIA', state: 'RrGg4KHPHrBPQQ-U8VQ3fjEw5QkRGYsJYZCm9fPYipQ' } },
    'GET /api/me/personal-knowledge': { response: json(status) },
    'DELETE /api/me/personal-knowledge': { params: { discard_unpushed: false } },
    'POST /api/me/personal-knowledge/sync': { response: json(status) },
    'GET /api/me/personal-knowledge/notes': { response: json({ items: [{ slug: NOTE, title: 'Reading list', updated: T2, blob: BLOB }], total: 1, last_sync: T2, stale: false, sync_error: null }) },
    'GET /api/me/personal-knowledge/notes/{slug}': {
      params: { slug: NOTE },
      response: json({ slug: NOTE, title: 'Reading list', content: '# Reading list\n\n- The EU AI Act for deployers\n', blob: BLOB, updated: T2, commit: COMMIT, audit_subject: 'note_5d1f0c2a', stale: false, sync_error: null }),
    },
    'PUT /api/me/personal-knowledge/notes/{slug}': { params: { slug: NOTE }, request: json({ content: '# Reading list\n\n- The EU AI Act for deployers\n', base_blob: BLOB }), response: json(noteWrite) },
    'DELETE /api/me/personal-knowledge/notes/{slug}': { params: { slug: NOTE }, response: json({ ...noteWrite, blob: null, action: 'delete' }) },
    'GET /api/me/personal-knowledge/history': {
      response: json([{ commit: COMMIT, slug: NOTE, action: 'update', message: 'Update reading-list', author: { name: 'Alice Novak', email: 'alice@example.com' }, time: T2, blob: BLOB }]),
    },
    'POST /api/admin/content-changed': { response: json({ request_id: 412, requested_at: T2, queued: ['update-index', 'rebuild-site'], detail: 'Queued: update-index, then rebuild-site.' }) },
  };
}

/** The device flow. */
function deviceFlowExamples(base: string): Record<string, OperationExample> {
  const deviceToken = { access_token: 'kb_WtAuFFhY8z6WNc_MuhxbqpgTh8GaFNNHmzXjO1G10nw', token_type: 'Bearer', expires_in: 7776000, key_id: 'key_j1h098dre9', user_email: 'alice@example.com' };
  return {
    'POST /api/oauth/device': {
      request: { ...json({ client_name: 'agent-login.sh', client_host: 'laptop' }), ...form({ client_name: 'agent-login.sh', client_host: 'laptop' }) },
      response: json({ device_code: DEVICE_CODE, user_code: USER_CODE, verification_uri: `${base}/device`, verification_uri_complete: `${base}/device?user_code=${USER_CODE}`, expires_in: 600, interval: 5 }),
    },
    'GET /api/oauth/device': {
      params: { client_name: 'agent-login.sh', client_host: 'laptop' },
      response: json({ device_code: DEVICE_CODE, user_code: USER_CODE, verification_uri: `${base}/device`, verification_uri_complete: `${base}/device?user_code=${USER_CODE}`, expires_in: 600, interval: 5 }),
    },
    'GET /api/device/lookup': {
      params: { user_code: USER_CODE },
      response: json({ user_code: USER_CODE, client_name: 'agent-login.sh', client_host: 'laptop', status: 'pending', sandbox: false, key_expires_in: 7776000, scope: null, created_at: T1, expires_at: '2026-11-20T09:24:05.271Z', viewer: { signed_in: true, role: 'user', can_approve: true } }),
    },
    'POST /api/device/approve': { request: json({ user_code: USER_CODE, action: 'approve' }), response: json({ user_code: USER_CODE, status: 'approved', client_name: 'agent-login.sh', client_host: 'laptop', decided_at: T2 }) },
    'POST /api/oauth/token': {
      request: { ...json({ grant_type: 'device_code', device_code: DEVICE_CODE }), ...form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: DEVICE_CODE }) },
      response: json(deviceToken),
    },
    'GET /api/oauth/token': { params: { grant_type: 'device_code', device_code: DEVICE_CODE }, response: json({ access_token: deviceToken.access_token, token_type: 'Bearer', expires_in: 3600, key_id: deviceToken.key_id }) },
    'GET /device': { params: { user_code: USER_CODE }, response: { 'text/html': '<!doctype html><html lang="en"><head><title>Approve a device</title></head><body><main><h1>Approve a device</h1><p>agent-login.sh on laptop asks to act as you.</p>…' } },
    'POST /device': { request: form({ user_code: USER_CODE, action: 'approve' }), response: { 'text/html': '<!doctype html><html lang="en"><head><title>Device approved</title></head><body><main><h1>Device approved</h1><p>agent-login.sh on laptop can now act as you. You can close this page.</p>…' } },
  };
}

/** OAuth 2.1: registration, authorization, tokens, revocation. */
function oauthExamples(base: string): Record<string, OperationExample> {
  return {
    'POST /api/oauth/v2/register': {
      request: json({ redirect_uris: ['http://127.0.0.1:8976/callback'], token_endpoint_auth_method: 'none', client_name: 'My agent', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
      response: json({ client_id: CLIENT_ID, client_id_issued_at: 1795683245, redirect_uris: ['http://127.0.0.1:8976/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], client_name: 'My agent' }),
    },
    'GET /api/oauth/v2/authorize': {
      params: { response_type: 'code', client_id: CLIENT_ID, code_challenge: 'TZc2gkdI9acFzoGvqDMrosY5Iczs9PVLL13fGlNBppw', scope: 'read write', state: 'af0ifjsldkj', resource: `${base}/mcp` },
      response: { 'text/html': '<!doctype html><html lang="en"><head><title>Allow My agent?</title></head><body><main><h1>Allow My agent to act as you?</h1>…' },
    },
    'POST /api/oauth/v2/authorize': { request: form({ response_type: 'code', client_id: CLIENT_ID, code_challenge: 'TZc2gkdI9acFzoGvqDMrosY5Iczs9PVLL13fGlNBppw', scope: 'read write', state: 'af0ifjsldkj', resource: `${base}/mcp`, csrf: 'k7pQ2v9xR4mT1sLw', decision: 'approve' }) },
    'POST /api/oauth/v2/token': {
      request: form({ grant_type: 'authorization_code', code: 'SplxlOBeZQQYbYS6WxSbIA', redirect_uri: 'http://127.0.0.1:8976/callback', code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', client_id: CLIENT_ID, resource: `${base}/mcp` }),
      response: json({ access_token: 'oat_2YotnFZFEjr1zCsicMWpAA', token_type: 'Bearer', expires_in: 3600, refresh_token: 'ort_tGzv3JOkF0XG5Qx2TlKWIA', scope: 'read write' }),
    },
    'POST /api/oauth/v2/revoke': { request: form({ token: 'ort_tGzv3JOkF0XG5Qx2TlKWIA', token_type_hint: 'refresh_token', client_id: CLIENT_ID }), response: json({}) },
  };
}

/** MCP and chat. */
function mcpAndChatExamples(base: string): Record<string, OperationExample> {
  return {
    'POST /mcp': {
      request: json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'AI procurement', limit: 1 } } }),
      response: json({
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: JSON.stringify({ query: 'AI procurement', hits: [{ type: 'knowledge', id: 'ai-procurement', title: 'AI procurement', page_url: `${base}/knowledge/ai-procurement` }] }) }] },
      }),
    },
    'POST /api/chat/auth': {
      request: json({ persona_id: 'pragmatic-cio', lang: 'en', mode: 'chat' }),
      response: json({ token: 'cht_Qm9vTWV0YWxsaWNhQnVubnk', token_type: 'Bearer', expires_in: 3600, expires_at: '2026-11-20T10:14:05.271Z', persona_id: 'pragmatic-cio', lang: 'en', mode: 'chat', anonymous: false }),
    },
    'POST /api/chat/completions': {
      request: json({ persona_id: 'pragmatic-cio', messages: [{ role: 'user', content: 'What should an AI procurement contract include?' }] }),
      response: {
        ...json({
          id: 'chatcmpl-5b0f8f0e-3c1a-4d8e-9b7a-2f6c1d0e4a93',
          object: 'chat.completion',
          created: 1795683245,
          model: 'extractive',
          mode: 'extractive',
          persona_id: 'pragmatic-cio',
          lang: 'en',
          coverage: 'full',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Audit rights, where the data lives and an exit plan [1].' }, finish_reason: 'stop' }],
          sources: [{ n: 1, type: 'knowledge', id: 'ai-procurement', title: 'AI procurement', url: '/knowledge/ai-procurement', page_url: `${base}/knowledge/ai-procurement`, lang: 'en', cited: true }],
        }),
        'text/event-stream': 'data: {"id":"chatcmpl-5b0f8f0e","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Audit rights"}}]}\n\ndata: [DONE]\n\n',
      },
    },
  };
}

/** The audit log: events, checkpoints, key, proofs, tiles. */
function auditExamples(base: string): Record<string, OperationExample> {
  const host = new URL(base).host;
  const checkpoint = `${host}/api/audit\n6\nO+vpziehmhABkCziP31hDcLWyJHzWQ2Icyz6gd/LfB0=\n\n— ${host}/api/audit ZWXFAAixXSC9dY5c5nIQjEPFNJrygH9WQwUyDa1SLwaYv4mFRkSrZae9ru0KC41lS1gdDHNOowgsDD6av0SIAZcMpw0=\n`;
  return {
    'GET /api/audit': {
      response: json({
        items: [
          {
            seq: 1,
            kind: 'user.create',
            subject_type: 'user',
            subject_id: ALICE.id,
            actor: 'u_7b0cf54db3e09b304102e040',
            created_at: T0,
            data: { role: 'user' },
            entry: `{"actor":"u_7b0cf54db3e09b304102e040","created_at":"${T0}","data":{"role":"user"},"kind":"user.create","seq":1,"subject_id":"${ALICE.id}","subject_type":"user"}`,
            leaf_hash: 'qpXClM+P6XkHdClfjXEyrVS+5EZVwukWgdIlDhOKcKw=',
          },
        ],
        next_after_seq: 1,
        tree_size: 29,
      }),
    },
    'GET /api/audit/checkpoints': { response: json({ items: [{ tree_size: 6, root_hash: 'O+vpziehmhABkCziP31hDcLWyJHzWQ2Icyz6gd/LfB0=', created_at: T1, note: checkpoint }], next_after_seq: null }) },
    'GET /api/audit/pubkey': {
      response: json({
        algorithm: 'Ed25519',
        origin: `${host}/api/audit`,
        key_name: `${host}/api/audit`,
        key_id: '6565c500',
        verifier_key: `${host}/api/audit+6565c500+AWy8IA7uM1WqY6d/y9qfVO1HhDjeHwV72d/eYVYWstTP`,
        public_key: 'bLwgDu4zVapjp3/L2p9U7UeEON4fBXvZ395hVhay1M8=',
        public_key_pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAbLwgDu4zVapjp3/L2p9U7UeEON4fBXvZ395hVhay1M8=\n-----END PUBLIC KEY-----\n',
        checkpoint_format: 'https://c2sp.org/tlog-checkpoint',
        note_format: 'https://c2sp.org/signed-note',
      }),
    },
    'GET /api/audit/proof/inclusion': {
      params: { seq: 2, tree_size: 6 },
      response: json({ seq: 2, leaf_index: 1, tree_size: 6, leaf_hash: '/9ZTJcIYW3iS73uqfjeJ+olSCtbQpB8hDoQKqIH4dDU=', root_hash: 'O+vpziehmhABkCziP31hDcLWyJHzWQ2Icyz6gd/LfB0=', proof: ['qpXClM+P6XkHdClfjXEyrVS+5EZVwukWgdIlDhOKcKw=', 'KRSfm9rcq0s+5aGS0cOkRYrETZjCq+XJsgj+MCGQ9mc=', 'MYKmhN093IZB5OumKklakZFcqHwSC4Pypv4TB3vbUaQ='] }),
    },
    'GET /api/audit/proof/consistency': {
      params: { from: 1, to: 3 },
      response: json({ from: 1, to: 3, from_root: 'qpXClM+P6XkHdClfjXEyrVS+5EZVwukWgdIlDhOKcKw=', to_root: 'MYKmhN093IZB5OumKklakZFcqHwSC4Pypv4TB3vbUaQ=', proof: ['/9ZTJcIYW3iS73uqfjeJ+olSCtbQpB8hDoQKqIH4dDU=', 'KRSfm9rcq0s+5aGS0cOkRYrETZjCq+XJsgj+MCGQ9mc='] }),
    },
    'GET /api/audit/checkpoint': { response: { 'text/plain': checkpoint } },
    'GET /api/audit/tile/{L}/{N}': { params: { L: '0', N: '000' } },
    'GET /api/audit/tile/entries/{N}': { params: { N: '000' } },
  };
}
