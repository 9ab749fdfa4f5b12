// The database side of personal knowledge: connections (host, repository, the encrypted token, sync state)
// and connect flows. Connects, disconnects, token renewals and note writes append their audit events in
// the same transaction; events name notes by pseudonym and never carry a token or a note's text.
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { TokenCipher } from './crypto.ts';

export type Mode = 'remote' | 'embedded';

/** What the git host lent us, kept only encrypted (see crypto.ts). */
export interface HostTokens {
  access_token: string;
  refresh_token?: string;
  /** ISO time the access token stops working, when the host said. */
  expires_at?: string;
  scope?: string;
}
export type ConnectionStatus = 'ok' | 'error' | 'reauthorization_required';

export interface ConnectionRow {
  user_id: string;
  mode: Mode;
  host: string;
  repository: string;
  branch: string;
  token_enc: Buffer | null;
  token_key_id: string | null;
  token_expires_at: string | null;
  scope: string | null;
  connected_at: string;
  status: ConnectionStatus;
  last_sync_at: string | null;
  last_error: string | null;
  last_error_kind: string | null;
  last_error_at: string | null;
}

export interface FlowRow {
  user_id: string;
  session_id: string;
  mode: Mode;
  verifier_enc: Buffer;
  redirect_uri: string;
  local_code_hash: Buffer | null;
  expires_at: string;
}

const tokenAad = (userId: string) => `pk-token:v1:${userId}`;
const flowAad = (stateHash: Buffer) => `pk-flow:v1:${stateHash.toString('hex')}`;
const now = () => new Date().toISOString();

/** Connect flows in flight: the PKCE verifier kept encrypted, bound to the flow's state. */
function connectFlows(db: Db, cipher: TokenCipher) {
  const dropExpiredFlows = db.prepare('DELETE FROM pk_connect_flows WHERE expires_at < ?');
  const insertFlow = db.prepare(
    `INSERT INTO pk_connect_flows (state_hash, user_id, session_id, mode, verifier_enc, redirect_uri, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const FLOW_COLUMNS = 'user_id, session_id, mode, verifier_enc, redirect_uri, local_code_hash, expires_at';
  const getFlow = db.prepare<[Buffer], FlowRow>(`SELECT ${FLOW_COLUMNS} FROM pk_connect_flows WHERE state_hash = ?`);
  const deleteFlow = db.prepare<[Buffer], FlowRow>(`DELETE FROM pk_connect_flows WHERE state_hash = ? RETURNING ${FLOW_COLUMNS}`);
  const setCode = db.prepare('UPDATE pk_connect_flows SET local_code_hash = ? WHERE state_hash = ? AND local_code_hash IS NULL');

  return {
    async createFlow(stateHash: Buffer, input: { userId: string; sessionId: string; mode: Mode; codeVerifier: string; redirectUri: string; ttlMs: number }): Promise<void> {
      const t = Date.now();
      await dropExpiredFlows.run(new Date(t).toISOString());
      await insertFlow.run(stateHash, input.userId, input.sessionId, input.mode, cipher.encrypt(input.codeVerifier, flowAad(stateHash)), input.redirectUri, new Date(t).toISOString(), new Date(t + input.ttlMs).toISOString());
    },

    peekFlow: (stateHash: Buffer): Promise<FlowRow | undefined> => getFlow.get(stateHash),

    /** Single use: the flow is gone once its callback arrives, whatever the outcome. */
    takeFlow: (stateHash: Buffer): Promise<FlowRow | undefined> => deleteFlow.get(stateHash),

    async setFlowCode(stateHash: Buffer, codeHash: Buffer): Promise<boolean> {
      return (await setCode.run(codeHash, stateHash)).changes > 0;
    },

    verifierOf: (stateHash: Buffer, flow: FlowRow): string => cipher.decrypt(flow.verifier_enc, flowAad(stateHash)),
  };
}

export function createPkStore(db: Db, audit: AuditLog, cipher: TokenCipher) {
  const getRow = db.prepare<[string], ConnectionRow>('SELECT * FROM pk_connections WHERE user_id = ?');
  const upsert = db.prepare<Record<string, unknown>, ConnectionRow>(
    `INSERT INTO pk_connections (user_id, mode, host, repository, branch, token_enc, token_key_id, token_expires_at, scope, connected_at, status, last_sync_at)
     VALUES (@user_id, @mode, @host, @repository, @branch, @token_enc, @token_key_id, @token_expires_at, @scope, @connected_at, 'ok', @t)
     ON CONFLICT (user_id) DO UPDATE SET mode = excluded.mode, host = excluded.host, repository = excluded.repository, branch = excluded.branch,
       token_enc = excluded.token_enc, token_key_id = excluded.token_key_id, token_expires_at = excluded.token_expires_at, scope = excluded.scope,
       connected_at = excluded.connected_at, status = 'ok', last_sync_at = excluded.last_sync_at,
       last_error = NULL, last_error_kind = NULL, last_error_at = NULL
     RETURNING *`,
  );
  const setTokens = db.prepare('UPDATE pk_connections SET token_enc = ?, token_key_id = ?, token_expires_at = ?, scope = COALESCE(?, scope) WHERE user_id = ?');
  const deleteRow = db.prepare('DELETE FROM pk_connections WHERE user_id = ?');
  const setSynced = db.prepare(`UPDATE pk_connections SET last_sync_at = ?, status = 'ok', last_error = NULL, last_error_kind = NULL, last_error_at = NULL WHERE user_id = ?`);
  const setError = db.prepare('UPDATE pk_connections SET status = ?, last_error = ?, last_error_kind = ?, last_error_at = ? WHERE user_id = ?');

  // Sync bookkeeping: operational state, not an act of the person, so no audit event (docs/decisions/0016-personal-knowledge-tokens.md).
  /** Returns the time it recorded as the last sync. */
  async function markSynced(userId: string): Promise<string> {
    const t = now();
    await setSynced.run(t, userId);
    return t;
  }

  async function markError(userId: string, kind: string, message: string): Promise<void> {
    const status: ConnectionStatus = kind === 'unauthorized' ? 'reauthorization_required' : 'error';
    await setError.run(status, message.slice(0, 500), kind, now(), userId);
  }

  return {
    cipher,

    connection: (userId: string): Promise<ConnectionRow | undefined> => getRow.get(userId),

    /** The host's tokens, or null when there are none or they no longer decrypt (key replaced): reconnect. */
    tokensOf(row: ConnectionRow): HostTokens | null {
      if (!row.token_enc || row.token_key_id !== cipher.keyId) return null;
      try {
        return JSON.parse(cipher.decrypt(row.token_enc, tokenAad(row.user_id))) as HostTokens;
      } catch {
        return null;
      }
    },

    /**
     * Creates or replaces the person's connection (a reconnect keeps `since` when the repository is the
     * same). It reads the connection before to decide that, so it holds the write lock from the start.
     */
    saveConnection(input: { userId: string; mode: Mode; host: string; repository: string; branch: string; tokens: HostTokens | null }): Promise<ConnectionRow> {
      return db.transaction(
        async () => {
          const before = await getRow.get(input.userId);
          const same = before && before.mode === input.mode && before.repository === input.repository;
          const enc = input.tokens ? cipher.encrypt(JSON.stringify(input.tokens), tokenAad(input.userId)) : null;
          const row = await upsert.get({
            user_id: input.userId,
            mode: input.mode,
            host: input.host,
            repository: input.repository,
            branch: input.branch,
            token_enc: enc,
            token_key_id: enc ? cipher.keyId : null,
            token_expires_at: input.tokens?.expires_at ?? null,
            scope: input.tokens?.scope ?? null,
            connected_at: same ? before.connected_at : now(),
            t: now(),
          });
          await audit.append({ kind: 'personal_knowledge.connect', subjectType: 'user', subjectId: input.userId, actor: { userId: input.userId }, data: { mode: input.mode, host: input.host, reconnect: !!same } });
          return row!;
        },
        { lock: true },
      );
    },

    /** Stores renewed tokens (the refresh grant), as the service itself. */
    updateTokens(userId: string, tokens: HostTokens): Promise<void> {
      return db.transaction(async () => {
        const enc = cipher.encrypt(JSON.stringify(tokens), tokenAad(userId));
        const r = await setTokens.run(enc, cipher.keyId, tokens.expires_at ?? null, tokens.scope ?? null, userId);
        if (r.changes > 0) await audit.append({ kind: 'personal_knowledge.token_refresh', subjectType: 'user', subjectId: userId, actor: 'system' });
      });
    },

    /** Erases the connection and with it the token. */
    deleteConnection(userId: string): Promise<boolean> {
      return db.transaction(async () => {
        const r = await deleteRow.run(userId);
        if (r.changes > 0) await audit.append({ kind: 'personal_knowledge.disconnect', subjectType: 'user', subjectId: userId, actor: { userId } });
        return r.changes > 0;
      });
    },

    markSynced,
    markError,

    /**
     * A note write or delete accepted: its audit event (the note's pseudonym, the commit, whether the host
     * has it yet) and the sync state it left, in one transaction.
     */
    recordNoteChange(userId: string, change: { slug: string; action: 'create' | 'update' | 'delete'; commit: string; pushed: boolean }, hostError?: { kind: string; message: string }): Promise<void> {
      return db.transaction(async () => {
        if (hostError) await markError(userId, hostError.kind, hostError.message);
        else if (change.pushed) await markSynced(userId);
        await audit.append({
          kind: `personal_knowledge.note_${change.action}`,
          subjectType: 'personal_knowledge_note',
          subjectId: cipher.notePseudonym(userId, change.slug),
          actor: { userId },
          data: { commit: change.commit, pushed: change.pushed },
        });
      });
    },

    ...connectFlows(db, cipher),
  };
}

export type PkStore = ReturnType<typeof createPkStore>;
