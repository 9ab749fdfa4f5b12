// Signed checkpoints verify with node:crypto from the published key and with the openssl command.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointBody, createSigner, loadOrCreateKey, noteSignature, openCheckpoint, signNote, verifierKey } from '../../../src/lib/data/audit/checkpoint.ts';

const root = Buffer.alloc(32, 7);

describe('C2SP signed-note checkpoints', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const signer = createSigner('kb.example.org/audit', privateKey);
  const note = signNote(checkpointBody('kb.example.org/audit', 42, root), signer);

  it('has the tlog-checkpoint body and one signature line', () => {
    const [body, sig] = note.split('\n\n');
    expect(body.split('\n')).toEqual(['kb.example.org/audit', '42', root.toString('base64')]);
    expect(sig).toMatch(/^— kb\.example\.org\/audit [A-Za-z0-9+/]+=*\n$/);
    expect(Buffer.from(sig.trim().split(' ')[2], 'base64')).toHaveLength(68);
  });

  it('verifies with the verifier key and rejects any change', () => {
    const key = verifierKey(signer);
    expect(key).toMatch(/^kb\.example\.org\/audit\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    expect(openCheckpoint(note, key)).toMatchObject({ origin: 'kb.example.org/audit', size: 42 });
    expect(openCheckpoint(note.replace('\n42\n', '\n43\n'), key)).toBeNull();
    const other = createSigner('kb.example.org/audit', generateKeyPairSync('ed25519').privateKey);
    expect(openCheckpoint(note, verifierKey(other))).toBeNull();
  });

  it('signs bytes that node:crypto and openssl verify with the public key alone', () => {
    const body = note.slice(0, note.indexOf('\n\n') + 1);
    const sig = noteSignature(note);
    const pem = signer.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(verify(null, Buffer.from(body), createPublicKey(pem), sig)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-openssl-'));
    try {
      fs.writeFileSync(path.join(dir, 'pub.pem'), pem);
      fs.writeFileSync(path.join(dir, 'body'), body);
      fs.writeFileSync(path.join(dir, 'sig'), sig);
      const out = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', 'pub.pem', '-rawin', '-in', 'body', '-sigfile', 'sig'], { cwd: dir, encoding: 'utf8' });
      expect(out).toMatch(/Signature Verified Successfully/);
      fs.writeFileSync(path.join(dir, 'body'), body.replace('42', '41'));
      expect(() => execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', 'pub.pem', '-rawin', '-in', 'body', '-sigfile', 'sig'], { cwd: dir, stdio: 'pipe' })).toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates the key once, with mode 0600, and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-key-'));
    try {
      const file = path.join(dir, 'keys', 'audit-ed25519.pem');
      const a = loadOrCreateKey(file);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const b = loadOrCreateKey(file);
      expect(a.export({ format: 'jwk' }).d).toBe(b.export({ format: 'jwk' }).d);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
