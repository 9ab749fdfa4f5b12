// The messages between api/db/postgres.ts and its worker thread (api/db/pg-worker.ts). A module of its
// own: importing the worker's module would start a synckit worker loop in the importing thread.

export type PgOp =
  | { op: 'connect'; id: number; url: string; applicationName: string }
  | { op: 'query'; id: number; text: string; values: unknown[]; name?: string }
  | { op: 'exec'; id: number; sql: string }
  | { op: 'close'; id: number };

export type PgAnswer =
  | { ok: true; rows: Record<string, unknown>[]; rowCount: number }
  | { ok: false; message: string; code?: string; detail?: string; constraint?: string };

/** Not a SQLSTATE: the connection was found dropped before the statement was sent. */
export const CONNECTION_LOST = 'KB_LOST';
