// The OpenID Connect relying party's state between GET /api/auth/idp/login and its callback: one row per
// sign-in started (PKCE verifier, nonce, where to go next), found by the SHA-256 of its state and taken once.
import type { Db } from '../db/index.ts';

export interface LoginFlow {
  code_verifier: string;
  nonce: string;
  next: string | null;
  next_user_code: string | null;
  expires_at: string;
}

/** @example const flows = loginFlows(db); await flows.start(hashSecret(state), { … }, now, ttlMs) */
export function loginFlows(db: Db) {
  const insert = db.prepare('INSERT INTO login_flows (state_hash, code_verifier, nonce, next, next_user_code, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const purge = db.prepare('DELETE FROM login_flows WHERE expires_at < ?');
  const take = db.prepare<[Buffer], LoginFlow>('DELETE FROM login_flows WHERE state_hash = ? RETURNING code_verifier, nonce, next, next_user_code, expires_at');
  return {
    /** Stores a new flow; sign-ins never finished expire here, each new one clearing the stale rows first. */
    async start(stateHash: Buffer, f: Omit<LoginFlow, 'expires_at'>, now: number, ttlMs: number): Promise<void> {
      await purge.run(new Date(now).toISOString());
      await insert.run(stateHash, f.code_verifier, f.nonce, f.next, f.next_user_code, new Date(now).toISOString(), new Date(now + ttlMs).toISOString());
    },
    /** The flow under this state, removed in the same statement: a state is used once, on any instance. */
    take: (stateHash: Buffer): Promise<LoginFlow | undefined> => take.get(stateHash),
  };
}
