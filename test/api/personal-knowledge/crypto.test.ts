// Token encryption at rest and the VCS_* settings, without a server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTokenCipher, loadOrCreateKey } from '../../../src/lib/data/personal-knowledge/crypto.ts';
import { conflictSlug, isSlug, titleOf } from '../../../api/personal-knowledge/slug.ts';
import { ConfigError, loadConfig } from '../../../src/lib/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-pk-crypto-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('token encryption', () => {
  it('creates one 32-byte key with mode 0600 and reuses it', () => {
    const key = loadOrCreateKey(dir);
    const file = path.join(dir, 'keys', 'personal-knowledge.key');
    expect(key).toHaveLength(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateKey(dir).equals(key)).toBe(true);
  });

  it('is AES-256-GCM bound to its row: a fresh IV each time, tampering and another row fail', () => {
    const cipher = createTokenCipher(loadOrCreateKey(dir));
    const a = cipher.encrypt('gho_secret-token', 'pk-token:v1:usr_a');
    const b = cipher.encrypt('gho_secret-token', 'pk-token:v1:usr_a');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('latin1')).not.toContain('gho_secret');
    expect(cipher.decrypt(a, 'pk-token:v1:usr_a')).toBe('gho_secret-token');
    expect(() => cipher.decrypt(a, 'pk-token:v1:usr_b')).toThrow();
    const flipped = Buffer.from(a);
    flipped[flipped.length - 1] ^= 1;
    expect(() => cipher.decrypt(flipped, 'pk-token:v1:usr_a')).toThrow();
    const otherKey = createTokenCipher(Buffer.alloc(32, 7));
    expect(() => otherKey.decrypt(a, 'pk-token:v1:usr_a')).toThrow();
    expect(otherKey.keyId).not.toBe(cipher.keyId);
  });

  it('names notes in the audit log by a per-person pseudonym', () => {
    const cipher = createTokenCipher(loadOrCreateKey(dir));
    expect(cipher.notePseudonym('usr_a', 'diary')).toBe(cipher.notePseudonym('usr_a', 'diary'));
    expect(cipher.notePseudonym('usr_a', 'diary')).not.toBe(cipher.notePseudonym('usr_b', 'diary'));
    expect(cipher.notePseudonym('usr_a', 'diary')).toMatch(/^pkn_[0-9a-f]{24}$/);
  });
});

describe('slugs and titles', () => {
  it('accepts the safe alphabet only', () => {
    for (const ok of ['a', 'reading-list', 'x_1', 'a'.repeat(80)]) expect(isSlug(ok), ok).toBe(true);
    for (const bad of ['', '../x', '..', 'a/b', 'A', '-a', 'a-', 'a.md', 'a'.repeat(81), 'é']) expect(isSlug(bad), bad).toBe(false);
    expect(isSlug(conflictSlug('a'.repeat(80), 'abcdef0123'))).toBe(true);
    expect(conflictSlug('plan', 'abcdef0123')).toBe('plan-conflict-abcdef0');
  });

  it('takes the title from front matter, then the first heading, then the slug', () => {
    expect(titleOf('---\ntitle: "From front matter"\n---\n# Heading\n', 's')).toBe('From front matter');
    expect(titleOf('intro\n\n## A heading ##\n', 's')).toBe('A heading');
    expect(titleOf('no heading', 'the-slug')).toBe('the-slug');
  });
});

describe('VCS_* settings', () => {
  const host = {
    VCS_AUTHORIZE_URL: 'https://github.com/login/oauth/authorize',
    VCS_TOKEN_URL: 'https://github.com/login/oauth/access_token',
    VCS_CLIENT_ID: 'Iv1.abc',
    VCS_REPO_URL_TEMPLATE: 'https://github.com/{login}/notes.git',
    VCS_USERINFO_URL: 'https://api.github.com/user',
  };

  it('defaults to the embedded store', () => {
    expect(loadConfig({}).vcs).toEqual({ host: null, branch: 'main', pullIntervalSeconds: 5, timeoutSeconds: 30 });
  });

  it('reads a host', () => {
    const { vcs } = loadConfig({ ...host, VCS_CLIENT_SECRET: 's', VCS_SCOPES: 'repo' });
    expect(vcs.host).toMatchObject({ hostName: 'github.com', issuer: 'https://github.com', tokenAuthMethod: 'client_secret_post', gitUsername: 'oauth2', scopes: 'repo' });
  });

  it('refuses half a host, {login} without a user endpoint, and plain http beyond loopback', () => {
    expect(() => loadConfig({ VCS_AUTHORIZE_URL: host.VCS_AUTHORIZE_URL })).toThrow(ConfigError);
    expect(() => loadConfig({ ...host, VCS_USERINFO_URL: '' })).toThrow(/VCS_USERINFO_URL/);
    expect(() => loadConfig({ ...host, VCS_TOKEN_URL: 'http://git.example.org/token' })).toThrow(/https/);
    expect(loadConfig({ ...host, VCS_TOKEN_URL: 'http://127.0.0.1:3000/token' }).vcs.host?.tokenUrl).toBe('http://127.0.0.1:3000/token');
  });
});
