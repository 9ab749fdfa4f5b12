// A person made directly in the database a benchmark's server will open: a browser session and an API
// key, through the identity store (so with their audit events), before the server starts.
import { openDatabase } from '../../src/lib/data/db/index.ts';
import { createAuditLog } from '../../src/lib/data/audit/index.ts';
import { createIdentity } from '../../src/lib/data/identity/index.ts';

/**
 * @param target the database: a SQLite file path or a postgres:// URL
 * @param origin the audit log's origin, as the server will use it
 * @example const { session, apiKey } = await seedPerson(path.join(dataDir, 'kb.sqlite'), dataDir, 'bench.local/api/audit')
 */
export async function seedPerson(target: string, dataDir: string, origin: string): Promise<{ session: string; apiKey: string }> {
  const db = await openDatabase(target, { applicationName: 'kb-bench' });
  try {
    const audit = await createAuditLog(db, { dataDir, origin, checkpointEvery: 100, checkpointIntervalSeconds: 3600 });
    const identity = createIdentity(db, audit, { keyPrefix: 'kb_', adminEmails: [], moderatorEmails: [], sessionTtlHours: 24 });
    const { user, sessionSecret } = await identity.signIn({ issuer: 'https://bench.idp', subject: 'bench', email: 'bench@example.org', emailVerified: true, name: 'Bench' });
    const { secret } = await identity.createApiKey(user.id, { name: 'bench', expiresAt: null });
    await audit.stop();
    return { session: sessionSecret, apiKey: secret };
  } finally {
    await db.close();
  }
}
