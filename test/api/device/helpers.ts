// Small clients of the device flow for the tests in this folder: the standard (POST) path and the
// GET aliases of sandboxes, side by side, so each test can run both.
import type { TestServer } from '../../helpers/server.ts';

export type Form = 'post' | 'get';
export const FORMS: Form[] = ['post', 'get'];
export const URN = 'urn:ietf:params:oauth:grant-type:device_code';

export interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export function deviceClient(srv: TestServer) {
  const send = (p: string, init: RequestInit & { json?: unknown } = {}) =>
    srv.get(p, {
      ...init,
      headers: { ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
  return {
    send,
    async start(form: Form, client = { client_name: 'test-agent', client_host: 'ci-box' }): Promise<Started> {
      const res =
        form === 'post'
          ? await send('/api/oauth/device', { method: 'POST', json: client })
          : await send(`/api/oauth/device?${new URLSearchParams(client)}`);
      if (res.status !== 200) throw new Error(`start: ${res.status} ${await res.text()}`);
      return res.json();
    },
    poll(form: Form, deviceCode: string, grantType = form === 'post' ? URN : 'device_code') {
      return form === 'post'
        ? send('/api/oauth/token', { method: 'POST', json: { grant_type: grantType, device_code: deviceCode } })
        : send(`/api/oauth/token?${new URLSearchParams({ grant_type: grantType, device_code: deviceCode })}`);
    },
    decide(userCode: string, action: 'approve' | 'deny', headers: Record<string, string> = {}) {
      return send('/api/device/approve', { method: 'POST', headers, json: { user_code: userCode, action } });
    },
    lookup(userCode: string, headers: Record<string, string> = {}) {
      return send(`/api/device/lookup?user_code=${encodeURIComponent(userCode)}`, { headers });
    },
  };
}

/** A table as JSON with BLOBs shown as hex, to search it for clear secrets. */
export async function dumpTable(srv: TestServer, table: string): Promise<string> {
  return JSON.stringify(await srv.db.prepare(`SELECT * FROM ${table}`).all(), (_k, v) =>
    Buffer.isBuffer(v) ? `hex:${v.toString('hex')}` : v?.type === 'Buffer' ? `hex:${Buffer.from(v.data).toString('hex')}` : v,
  );
}
