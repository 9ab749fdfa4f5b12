// One entry per operation of /openapi.json, keyed by "METHOD path": its operationId (client generators and
// MCP bridges name functions after it), a description, and who may call it. The document applies these
// when it is generated (api/openapi/index.ts), and addRoute checks the caller's identity from `access`
// before it validates the request, so a call that needs a user answers 401 before 422 (FastAPI's order).
// A route without an entry fails test/api/interop/openapi.test.ts with its name: add it here.

/**
 * Who may call an operation.
 * - public: anyone; credentials are not looked at.
 * - optional: anyone; a signed-in caller may see more (drafts, hidden comments, their own role).
 * - user: a signed-in user by any credential (session, API key, OAuth token with read for GET, write otherwise).
 * - session: a browser session only (401 for other credentials).
 * - account: a browser session only; API keys and OAuth tokens get 403 (managing the account's credentials).
 * - moderator, admin: a user holding that role (an OAuth token also needs the moderate or admin scope).
 * - chat: the chat token from POST /api/chat/auth, or an API key or OAuth access token (read scope).
 * - oauth-client: an OAuth client at the token or revocation endpoint (HTTP Basic for confidential clients,
 *   client_id alone for public ones).
 * - mcp: anyone for the read tools; an OAuth access token issued for the /mcp resource for the rest (its
 *   scopes decide which tools may be called; every tool is listed to everyone); API keys are refused.
 * - browser: an HTML page or form for people; a browser session where the page needs one.
 */
export type Access = 'public' | 'optional' | 'user' | 'session' | 'account' | 'moderator' | 'admin' | 'chat' | 'oauth-client' | 'mcp' | 'browser';

export interface OperationEntry {
  operationId: string;
  /** What the operation does beyond its summary (followed by any description the route declares itself). */
  description?: string;
  access: Access;
  /** Answers the route's own declaration misses, by status (documented with the `{"detail"}` body). */
  responses?: Record<string, string>;
}

/** Access kinds that need a signed-in user: checked before validation, and documented with 401 (and 403). */
export const NEEDS_USER: ReadonlySet<Access> = new Set<Access>(['user', 'session', 'account', 'moderator', 'admin']);

/** The tags operations use, declared with a description each (the order of the reference's sections). */
export const TAGS: { name: string; description: string }[] = [
  { name: 'agent', description: 'Entry points for agents: the briefing, the prose reference, skills, configuration and health.' },
  { name: 'discovery', description: 'Discovery documents at fixed paths: llms.txt, agent and MCP cards, OAuth metadata, the login script.' },
  { name: 'content', description: 'Anonymous reads of the curated content: videos, channels, essays, digests, knowledge, personas, tags, the graph.' },
  { name: 'search', description: 'Keyword and hybrid search, and related items per item.' },
  { name: 'auth', description: 'Browser sign-in through the identity provider, the caller\'s identity, sign-out.' },
  { name: 'account', description: 'The signed-in person\'s profile, browser sessions, API keys and connected OAuth apps; public profiles.' },
  { name: 'notifications', description: 'Per-user notifications: mentions, replies and system messages.' },
  { name: 'comments', description: 'Comments on any item, with replies, reactions and edits.' },
  { name: 'moderation', description: 'Moderator powers: hidden comments, post reviews, proposal decisions.' },
  { name: 'proposals', description: 'Community proposals against the knowledge canon, and flags that auto-reject them.' },
  { name: 'sources', description: 'Everything citable, and adding web pages, texts and AI-drafted knowledge.' },
  { name: 'posts', description: 'User-written posts with an ETag-guarded essay, co-admins and votes.' },
  { name: 'personal-knowledge', description: 'A connected note repository: notes, history, sync.' },
  { name: 'device', description: 'The device flow (RFC 8628 and the spec\'s legacy JSON and GET forms) and its approval page.' },
  { name: 'oauth', description: 'OAuth 2.1: dynamic registration, authorization with PKCE, tokens, revocation.' },
  { name: 'mcp', description: 'The Model Context Protocol resource, protected by OAuth 2.1.' },
  { name: 'chat', description: 'Chat with a persona over the knowledge base (OpenAI-compatible).' },
  { name: 'audit', description: 'The append-only audit log: events, signed checkpoints, proofs, the verification key.' },
  { name: 'pipeline', description: 'The content pipeline: admins ask it to publish changes to the content folder now.' },
];

const SAME_AS_SLUG = 'The spec writes the read of /api/posts/{post_id} as GET /api/posts/{slug}: one URL, so one template here, and post_id may also be the post\'s slug.';

export const CATALOGUE: Record<string, OperationEntry> = {
  // ---- agent and discovery ----
  'GET /api': { operationId: 'getApiReference', access: 'public', description: 'The prose reference for agents as Markdown; browsers and clients that prefer JSON get a brief JSON summary with links (content negotiation on Accept).' },
  'GET /api/latest': { operationId: 'getBriefing', access: 'public', description: 'The one-call briefing: freshness, login hints, counts, the latest digest (Markdown whose Sources lines link /videos/<video_id>), the latest videos and essays with agent-form urls, and where to explore.' },
  'GET /api/brief': { operationId: 'getBriefingAlias', access: 'public', description: 'Alias of GET /api/latest: the same document.' },
  'GET /api/skill.md': { operationId: 'getSkillFile', access: 'public', description: 'How an agent uses this service, as a skill file in Markdown.' },
  'GET /SKILL.md': { operationId: 'getRootSkillFile', access: 'public', description: 'The skill file at its conventional root path; the same document as /api/skill.md.' },
  'GET /llms.txt': { operationId: 'getLlmsTxt', access: 'public', description: 'The llms.txt index of the site: what it is and where the main documents are.' },
  'GET /llms-full.txt': { operationId: 'getLlmsFullTxt', access: 'public', description: 'Every essay (all languages), digest, knowledge concept and persona, and every video\'s summary, as one Markdown document; each part opens with the page to cite.' },
  'GET /.well-known/agent.json': { operationId: 'getAgentCard', access: 'public', description: 'The agent card: name, capabilities, endpoints (briefing, MCP, OpenAPI) and skills.' },
  'GET /.well-known/mcp.json': { operationId: 'getMcpCard', access: 'public', description: 'The MCP server card: the /mcp endpoint, its transport and how to authenticate.' },
  'GET /.well-known/oauth-authorization-server': { operationId: 'getAuthorizationServerMetadata', access: 'public', description: 'RFC 8414 authorization server metadata: endpoints, grant types, PKCE methods, scopes.' },
  'GET /.well-known/oauth-protected-resource': { operationId: 'getProtectedResourceMetadata', access: 'public', description: 'RFC 9728 metadata of the protected resource /mcp: its authorization server and scopes.' },
  'GET /.well-known/oauth-protected-resource/mcp': { operationId: 'getMcpProtectedResourceMetadata', access: 'public', description: 'RFC 9728 metadata at the path-suffixed location for the /mcp resource; the same document.' },
  'GET /agent-login.sh': { operationId: 'getAgentLoginScript', access: 'public', description: 'A POSIX sh client of the device flow for this server; it stores the key in a 0600 credential file.' },
  'GET /api/config': { operationId: 'getPublicConfig', access: 'public', description: 'Public client configuration, including dev_mode and the API key prefix.' },
  'GET /api/health': {
    operationId: 'getHealth',
    access: 'optional',
    description: 'Anonymous liveness probe. With detail=true an admin also gets component states and failure counters; anyone else gets 401 or 403 for the detail view.',
    responses: { 401: 'detail=true without credentials', 403: 'detail=true by someone who is not an admin' },
  },
  'GET /api/skills': { operationId: 'listSkills', access: 'public', description: 'The installable skills, with a link to each.' },
  'GET /api/skills/{name}': { operationId: 'getSkill', access: 'public', description: 'One skill as plain-text Markdown.' },

  // ---- content ----
  'GET /api/videos': { operationId: 'listVideos', access: 'public', description: 'Videos, newest first; filter by channel, tag, front-page highlight and date, page with limit and offset.' },
  'GET /api/videos/{video_id}': { operationId: 'getVideo', access: 'public', description: 'One video with its summary, tags and channel; agent=true keeps links in the JSON (agent) form.' },
  'GET /api/videos/{video_id}/thumbnail': { operationId: 'getVideoThumbnail', access: 'public', description: 'The video\'s title card as SVG, or with VIDEO_THUMBNAILS=proxy its real thumbnail, fetched and cached by the site (a title card when the source has none).' },
  'GET /api/channels': { operationId: 'listChannels', access: 'public', description: 'Every channel with its video count.' },
  'GET /api/channels/{channel_id}': { operationId: 'getChannel', access: 'public', description: 'One channel and its videos, paged with limit and offset.' },
  'GET /api/essays': { operationId: 'listEssays', access: 'public', description: 'Essays, newest first, with their available languages.' },
  'GET /api/essays/{slug}': { operationId: 'getEssay', access: 'public', description: 'One essay in its primary language or the one asked for; agent=true rewrites its links to the agent form.' },
  'GET /api/essays/{slug}/thumbnail': { operationId: 'getEssayThumbnail', access: 'public', description: 'The essay\'s title card as SVG.' },
  'GET /api/digests': { operationId: 'listDigests', access: 'public', description: 'Daily digests, newest first; since keeps those on or after a date.' },
  'GET /api/digests/{date}': { operationId: 'getDigest', access: 'public', description: 'One day\'s digest: its Markdown and its five items with their sources; agent=true rewrites links to the agent form.' },
  'GET /api/digests/{date}/thumbnail': { operationId: 'getDigestThumbnail', access: 'public', description: 'The digest\'s title card as SVG.' },
  'GET /api/knowledge': { operationId: 'listKnowledge', access: 'public', description: 'Knowledge concepts; draft=true includes draft concepts.' },
  'GET /api/knowledge/{slug}': { operationId: 'getKnowledgeConcept', access: 'public', description: 'One knowledge concept with its sources and related concepts.' },
  'GET /api/personas': { operationId: 'listPersonas', access: 'public', description: 'The personas and their modes and languages.' },
  'GET /api/personas/{persona_id}': { operationId: 'getPersona', access: 'public', description: 'One persona and links to its modelfiles.' },
  'GET /api/personas/modelfiles/{persona_id}/{mode}/{lang}': { operationId: 'getPersonaModelfile', access: 'public', description: 'One modelfile of a persona for a mode and a language.' },
  'GET /api/tags': { operationId: 'listTags', access: 'public', description: 'Every tag with the number of items that carry it.' },
  'GET /api/graph': { operationId: 'getGraphPage', access: 'public', description: 'The interactive knowledge graph as an HTML page.' },
  'GET /api/graph/data': { operationId: 'getGraphData', access: 'public', description: 'The graph\'s nodes and edges as JSON.' },

  // ---- search ----
  'GET /api/search': { operationId: 'search', access: 'public', description: 'Keyword or hybrid (keyword plus vector, fused by reciprocal rank) search across content types; types narrows them (type is deprecated); draft=true adds draft concept stubs at 0.7 of their score. Limited per caller address (429).' },
  'GET /api/videos/{video_id}/related': { operationId: 'listRelatedToVideo', access: 'public', description: 'The k items nearest to one video by embedding, blended with shared tags and links.' },
  'GET /api/knowledge/{slug}/related': { operationId: 'listRelatedToKnowledgeConcept', access: 'public', description: 'The k items nearest to one knowledge concept by embedding, blended with shared tags and links.' },
  'GET /api/essays/{slug}/related': { operationId: 'listRelatedToEssay', access: 'public', description: 'The k items nearest to one essay by embedding, blended with shared tags and links.' },
  'GET /api/digests/{date}/related': { operationId: 'listRelatedToDigest', access: 'public', description: 'The k items nearest to one digest by embedding, blended with shared tags and links.' },
  'GET /api/personas/{persona_id}/related': { operationId: 'listRelatedToPersona', access: 'public', description: 'The k items nearest to one persona by embedding, blended with shared tags and links.' },
  'GET /api/posts/{post_id}/related': { operationId: 'listRelatedToPost', access: 'public', description: `The k items nearest to one published post by embedding, blended with shared tags and links. ${SAME_AS_SLUG}` },

  // ---- auth and account ----
  'GET /api/auth/me': { operationId: 'getCurrentIdentity', access: 'optional', description: 'Whether the credentials (session, API key or OAuth token) are valid and whose they are: {authenticated:false} without credentials. Never returns e-mail or other personal data.' },
  'POST /api/auth/logout': {
    operationId: 'logout',
    access: 'optional',
    description:
      'Ends the browser session, if any, and clears its cookie; everywhere=true ends every browser session of its person. end_session_url, when not null, is where the browser goes next so the identity provider signs it out too.',
  },
  'GET /api/account/me': { operationId: 'getAccount', access: 'session', description: 'The full profile of the signed-in person, e-mail included.' },
  'PATCH /api/account/me': { operationId: 'updateAccount', access: 'session', description: 'Change your display name, bio or handle (409 when the handle is taken).' },
  'GET /api/account/api-keys': { operationId: 'listApiKeys', access: 'account', description: 'Your live API keys, without their secrets.' },
  'POST /api/account/api-keys': { operationId: 'createApiKey', access: 'account', description: 'Create an API key; its secret is shown in this response only.' },
  'DELETE /api/account/api-keys/{key_id}': { operationId: 'revokeApiKey', access: 'account', description: 'Revoke one of your API keys; it stops working at once.' },
  'GET /api/account/sessions': { operationId: 'listSessions', access: 'account', description: 'Where you are signed in: each open browser session with its device, when it signed in and when it was last used; current marks this one.' },
  'DELETE /api/account/sessions/{session_id}': { operationId: 'endSession', access: 'account', description: 'Sign one of your browser sessions out; it stops working at once.' },
  'GET /api/users/{user_id}': { operationId: 'getUserProfile', access: 'public', description: 'A person\'s public profile (display name, handle, role); never e-mail.' },
  'GET /api/auth/idp/login': { operationId: 'startBrowserLogin', access: 'browser', description: 'Redirects the browser to the identity provider; next (and next_user_code for the device page) say where to return.' },
  'GET /api/auth/idp/callback': { operationId: 'finishBrowserLogin', access: 'browser', description: 'The identity provider returns here; on success a session cookie is set and the browser goes on to next.' },

  // ---- notifications ----
  'GET /api/notifications': { operationId: 'listNotifications', access: 'user', description: 'Your notifications, newest first; filter by all, mentions, system or unread, with or without dismissed ones.' },
  'GET /api/notifications/unread': { operationId: 'countUnreadNotifications', access: 'user', description: 'How many unread notifications you have.' },
  'POST /api/notifications/mark-all-read': { operationId: 'markAllNotificationsRead', access: 'user', description: 'Mark every notification read; answers how many changed.' },
  'POST /api/notifications/{notification_id}/read': { operationId: 'markNotificationRead', access: 'user', description: 'Mark one of your notifications read.' },
  'DELETE /api/notifications/{notification_id}': { operationId: 'dismissNotification', access: 'user', description: 'Dismiss one of your notifications.' },

  // ---- comments ----
  'GET /api/comments': { operationId: 'listComments', access: 'optional', description: 'Comments on one item, oldest first; include_hidden=true shows hidden ones to moderators. A signed-in caller also gets their own hidden comments (hidden: true), which no one else but moderators sees; their author is notified when a comment is hidden.' },
  'POST /api/comments': { operationId: 'createComment', access: 'user', description: 'Comment on an item, or reply with parent_id; @handle mentions notify people. Limited per user (429).' },
  'GET /api/comments/create': { operationId: 'createCommentViaGet', access: 'user', description: 'Comment creation for sandboxes that cannot POST: a bearer token with the write scope is required, and idempotency_key makes a repeat return the first comment.' },
  'GET /api/comments/{comment_id}': { operationId: 'getComment', access: 'optional', description: 'One comment; a hidden one only for moderators.' },
  'PATCH /api/comments/{comment_id}': { operationId: 'updateComment', access: 'user', description: 'Edit your comment; earlier versions are kept. With If-Match (the comment\'s ETag), only the version you read: 412 with the current one otherwise.' },
  'DELETE /api/comments/{comment_id}': { operationId: 'deleteComment', access: 'user', description: 'Delete a comment: its author, or a moderator. With If-Match, only the version you read (412 otherwise).' },
  'POST /api/comments/{comment_id}/hide': { operationId: 'hideComment', access: 'moderator', description: 'Hide a comment from everyone but moderators.' },
  'POST /api/comments/{comment_id}/unhide': { operationId: 'unhideComment', access: 'moderator', description: 'Show a hidden comment again.' },
  'POST /api/comments/{comment_id}/react': { operationId: 'reactToComment', access: 'user', description: 'Add a reaction of one kind (one per person per kind per comment).' },
  'DELETE /api/comments/{comment_id}/react/{kind}': { operationId: 'removeCommentReaction', access: 'user', description: 'Take your reaction of one kind back.' },

  // ---- proposals ----
  'GET /api/proposals': { operationId: 'listProposals', access: 'public', description: 'Proposals in a status bucket (pending, decided or all) and optionally of one kind; pending ones by confidence, highest first, then newest.' },
  'POST /api/proposals': { operationId: 'createProposal', access: 'user', description: 'Propose a change to the canon: link_add, tag_correction, concept_stub or essay_promotion.' },
  'GET /api/proposals/{proposal_id}': { operationId: 'getProposal', access: 'public', description: 'One proposal with its evidence and community flags.' },
  'POST /api/proposals/{proposal_id}/flag': { operationId: 'flagProposal', access: 'user', description: 'Flag a pending proposal, once per user (409 on a repeat); at AUTO_REJECT_FLAG_THRESHOLD flags it is rejected with decided_by null.' },
  'POST /api/proposals/{proposal_id}/decision': { operationId: 'decideProposal', access: 'moderator', description: 'Accept, reject, apply or supersede a proposal.' },

  // ---- sources ----
  'GET /api/sources': { operationId: 'listSources', access: 'public', description: 'Everything citable, most recent first: videos, essays, digests, added web pages, published posts and top-level comments (never knowledge concepts or drafts).' },
  'POST /api/sources': { operationId: 'addSource', access: 'user', description: 'Add a web page (the server fetches it) or a pasted text as a source.' },
  'POST /api/sources/knowledge': { operationId: 'draftKnowledgeConcept', access: 'user', description: 'Draft a knowledge concept on a topic from the sources found, and propose it as a concept stub; the content is AI-generated.' },

  // ---- posts ----
  'GET /api/posts': { operationId: 'listPosts', access: 'public', description: 'Published posts, newest or oldest first, optionally with one tag.' },
  'POST /api/posts': { operationId: 'createPost', access: 'user', description: 'Create a post as a draft; you are its author. The 201 carries Location, the post\'s ETag, and essay_etag for the first essay PUT.' },
  'GET /api/posts/me': { operationId: 'listMyPosts', access: 'user', description: 'Your posts, as author or co-admin, in every state.' },
  'GET /api/posts/{post_id}': { operationId: 'getPost', access: 'optional', description: 'One post by its id or its slug; drafts only for their author, co-admins and moderators. The spec writes this read as GET /api/posts/{slug}: the same URL as the other methods\' /api/posts/{post_id}, so it is documented with their template (one path, where two differing only in the parameter\'s name would be ambiguous).' },
  'PATCH /api/posts/{post_id}': { operationId: 'updatePost', access: 'user', description: `Change a post\'s title, summary, tags or language: its author or a co-admin. With If-Match (the post\'s ETag), only the version you read: 412 with the current one otherwise. ${SAME_AS_SLUG}` },
  'DELETE /api/posts/{post_id}': { operationId: 'deletePost', access: 'user', description: `Delete a post: its author only; with If-Match, only the version you read (412 otherwise). ${SAME_AS_SLUG}` },
  'POST /api/posts/{post_id}/submit': { operationId: 'submitPost', access: 'user', description: 'Submit a draft: published at once when it passes the checks and auto-publish is on, otherwise queued for a moderator.' },
  'POST /api/posts/{post_id}/review': { operationId: 'reviewPost', access: 'moderator', description: 'Publish or reject a submitted post.' },
  'GET /api/posts/{post_id}/essay': { operationId: 'getPostEssay', access: 'optional', description: 'The post essay with its ETag, to send back as If-Match.' },
  'PUT /api/posts/{post_id}/essay': { operationId: 'replacePostEssay', access: 'user', description: 'Replace the post essay: If-Match with the ETag you read (428 without it once an essay exists, 412 when someone saved in between).' },
  'GET /api/posts/{post_id}/admins': { operationId: 'listPostAdmins', access: 'optional', description: 'The post\'s author and co-admins.' },
  'POST /api/posts/{post_id}/admins': { operationId: 'grantPostCoAdmin', access: 'user', description: 'Make someone a co-admin of your post (author only).' },
  'DELETE /api/posts/{post_id}/admins/{user_id}': { operationId: 'removePostCoAdmin', access: 'user', description: 'Remove a co-admin: the author, or the co-admin themselves.' },
  'GET /api/posts/{post_id}/essay/votes': { operationId: 'getPostEssayVotes', access: 'optional', description: 'The number of votes on the essay and whether you voted.' },
  'POST /api/posts/{post_id}/essay/vote': { operationId: 'voteForPostEssay', access: 'user', description: 'Vote for the essay: one vote per person, not on your own post (409 on a repeat).' },
  'DELETE /api/posts/{post_id}/essay/vote': { operationId: 'removePostEssayVote', access: 'user', description: 'Take your vote back.' },

  // ---- personal knowledge ----
  'GET /api/auth/vcs/begin': { operationId: 'beginNoteStoreConnection', access: 'session', description: 'Start connecting your note repository: answers the host\'s authorize URL to send the browser to.' },
  'GET /api/auth/vcs/embedded/authorize': { operationId: 'authorizeEmbeddedNoteStore', access: 'session', description: 'The embedded note store\'s authorize step, used only when no git host is configured; redirects to the callback.' },
  'GET /api/auth/vcs/callback': { operationId: 'finishNoteStoreConnection', access: 'browser', description: 'The host sends the browser here; the session that began the flow is connected and the browser goes to /account?pk=connected (or an error).' },
  'GET /api/me/personal-knowledge': { operationId: 'getNoteStoreStatus', access: 'user', description: 'Your note repository connection: host, repository, since when, last sync and last error.' },
  'DELETE /api/me/personal-knowledge': { operationId: 'disconnectNoteStore', access: 'account', description: 'Disconnect the note repository: the token and the local clone are erased (pending changes are pushed first when the host allows).' },
  'POST /api/me/personal-knowledge/sync': { operationId: 'syncNoteStore', access: 'user', description: 'Push what is saved here but not yet at the host, and fetch what is new there.' },
  'GET /api/me/personal-knowledge/notes': { operationId: 'listNotes', access: 'user', description: 'Your notes: slug, title and last change.' },
  'GET /api/me/personal-knowledge/notes/{slug}': { operationId: 'getNote', access: 'user', description: 'One note, with its blob id as ETag.' },
  'PUT /api/me/personal-knowledge/notes/{slug}': { operationId: 'putNote', access: 'user', description: 'Create or update a note in one commit (If-Match guards against overwriting a newer version).' },
  'DELETE /api/me/personal-knowledge/notes/{slug}': { operationId: 'deleteNote', access: 'user', description: 'Delete a note in one commit (If-Match optional: 409 when it changed since).' },
  'GET /api/me/personal-knowledge/history': { operationId: 'listNoteHistory', access: 'user', description: 'Commits that touched your notes, newest first; slug scopes the list to one note.' },

  // ---- pipeline ----
  'POST /api/admin/content-changed': {
    operationId: 'publishContentChanges',
    access: 'admin',
    description:
      'For a git hook or CI where content arrives by other means than the folder the scheduler watches: queues update-index, then rebuild-site, in the scheduler of this deployment (it reads the request through the database, whichever process or instance runs it). 202 with what was queued; a file that fails validation is reported by npm run pipeline -- status and the briefing, and the rest is published.',
  },
  // ---- moderation ----
  'GET /api/moderation/comments': { operationId: 'listHiddenComments', access: 'moderator', description: 'Hidden comments across all items, most recently changed first.' },
  'GET /api/moderation/posts': { operationId: 'listSubmittedPosts', access: 'moderator', description: 'The review queue: posts submitted while auto-publish is off, or edited after publication. POST /api/posts/{post_id}/review publishes one or sends it back with a note.' },

  // ---- device flow ----
  'POST /api/oauth/device': { operationId: 'startDeviceAuthorization', access: 'public', description: 'Start a device sign-in (RFC 8628 device authorization request): answers device_code, user_code, verification_uri_complete, expires_in and interval.' },
  'GET /api/oauth/device': { operationId: 'startDeviceAuthorizationViaGet', access: 'public', description: 'The same as POST /api/oauth/device for sandboxes that cannot POST (a non-RFC alias); the key it leads to lives one hour.' },
  'POST /api/oauth/token': { operationId: 'pollDeviceToken', access: 'public', description: 'Poll for the API key of a device sign-in (RFC 8628 §3.4) every interval seconds; the device_code is the credential. Errors are RFC 6749 JSON with error and error_description.' },
  'GET /api/oauth/token': { operationId: 'pollDeviceTokenViaGet', access: 'public', description: 'The same poll for sandboxes that cannot POST (a non-RFC alias); the key lives one hour.' },
  'GET /api/device/lookup': { operationId: 'lookupDeviceRequest', access: 'optional', description: 'The pending request behind a user code (404 unknown, 410 expired or decided), with the viewer\'s role when signed in.' },
  'POST /api/device/approve': { operationId: 'decideDeviceRequest', access: 'session', description: 'Approve or deny a device sign-in in a browser session; the approver owns the key the device gets.' },
  'GET /device': {
    operationId: 'getDeviceApprovalPage',
    access: 'browser',
    description: 'The approval page for people (HTML): enter or check the code, sign in, then approve or deny.',
    responses: { 404: 'Unknown code (the page says so)', 410: 'Expired or already decided code', 422: 'A code longer than any code', 429: 'Too many wrong codes from this address' },
  },
  'POST /device': {
    operationId: 'submitDeviceApprovalForm',
    access: 'browser',
    description: 'The approval page\'s form (HTML): needs a browser session and a same-origin Origin header.',
    responses: { 401: 'Not signed in with a browser session', 404: 'Unknown code', 410: 'Expired or already decided code', 422: 'No code or no decision in the form', 429: 'Too many wrong codes from this address' },
  },

  // ---- OAuth 2.1 ----
  'POST /api/oauth/v2/register': { operationId: 'registerOAuthClient', access: 'public', description: 'Dynamic client registration (RFC 7591): public clients (none) or confidential ones (client_secret_basic, secret returned once). Limited per address.' },
  'GET /api/oauth/v2/authorize': { operationId: 'authorize', access: 'browser', description: 'The authorization endpoint: the browser signs in, then sees a consent page naming the client and warning about moderator and admin scopes; approval redirects back with code and state. S256 PKCE is required.' },
  'POST /api/oauth/v2/authorize': { operationId: 'submitConsent', access: 'browser', description: 'The consent form\'s answer (same origin, browser session, CSRF token): approve or deny.' },
  'POST /api/oauth/v2/token': { operationId: 'exchangeOAuthToken', access: 'oauth-client', description: 'The token endpoint: authorization_code (with the PKCE verifier) and refresh_token grants; refresh tokens rotate, and a used one revokes its whole grant. Errors are RFC 6749 JSON.' },
  'POST /api/oauth/v2/revoke': { operationId: 'revokeOAuthToken', access: 'oauth-client', description: 'Token revocation (RFC 7009): always 200, also for unknown or already revoked tokens.' },
  'GET /api/account/oauth-clients': { operationId: 'listConnectedApps', access: 'account', description: 'The OAuth apps holding active grants from you.' },
  'DELETE /api/account/oauth-clients/{client_id}': { operationId: 'disconnectApp', access: 'account', description: 'Revoke every grant you gave this app; its tokens stop working at once.' },

  // ---- MCP and chat ----
  'POST /mcp': {
    operationId: 'callMcp',
    access: 'mcp',
    description:
      'Model Context Protocol over Streamable HTTP (stateless JSON-RPC). Read tools, resources and persona prompts need no token; an OAuth 2.1 access token issued for this resource adds your notes, and its write scope the tools that act (comment, react, flag, post, notes). A tool called without the scope it needs answers 401/403 with WWW-Authenticate naming the protected resource metadata and the scope.',
  },
  'POST /api/chat/auth': { operationId: 'createChatToken', access: 'user', description: 'Trade your identity for a short-lived chat token bound to you, a persona, a language and a mode. With CHAT_ALLOW_ANONYMOUS the call works signed out too.' },
  'POST /api/chat/completions': {
    operationId: 'createChatCompletion',
    access: 'chat',
    description:
      'Ask the knowledge base in the OpenAI chat-completions shape (stream=true for server-sent events) with a chat token, or with your API key or OAuth token and persona_id (and lang, mode) in the body; the answer cites its sources, and sources lists exactly those.',
  },

  // ---- audit ----
  'GET /api/audit': { operationId: 'listAuditEvents', access: 'public', description: 'Audit events in ascending seq order after after_seq; filter by kind, subject_type and subject_id.' },
  'GET /api/audit/checkpoints': { operationId: 'listAuditCheckpoints', access: 'public', description: 'Signed checkpoints (signed notes) in ascending tree size after after_seq.' },
  'GET /api/audit/pubkey': { operationId: 'getAuditPublicKey', access: 'public', description: 'The public key that verifies the checkpoints\' signatures.' },
  'GET /api/audit/proof/inclusion': { operationId: 'getAuditInclusionProof', access: 'public', description: 'An RFC 9162 inclusion proof of one event in a tree size.' },
  'GET /api/audit/proof/consistency': { operationId: 'getAuditConsistencyProof', access: 'public', description: 'An RFC 9162 consistency proof between two tree sizes.' },
  // C2SP tlog-tiles (api/audit/routes.ts describes them)
  'GET /api/audit/checkpoint': { operationId: 'getAuditCheckpoint', access: 'public' },
  'GET /api/audit/tile/{L}/{N}': { operationId: 'getAuditTile', access: 'public' },
  'GET /api/audit/tile/entries/{N}': { operationId: 'getAuditEntryBundle', access: 'public' },
};

/** The catalogue entry of an operation; undefined when it has none (the OpenAPI test names it). */
export function catalogueEntry(method: string, path: string): OperationEntry | undefined {
  return CATALOGUE[`${method.toUpperCase()} ${path}`];
}
