// Errors the data layer raises for its callers to tell apart: a PostgreSQL error with its SQLSTATE, and a
// string that PostgreSQL's text cannot hold (refused the same way on both databases: see
// api/validation/nul.ts for how the HTTP layer answers it).

/** An error PostgreSQL answered, with its SQLSTATE (`23505` unique violation, …). */
export class PgError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly constraint?: string;
  constructor(message: string, code?: string, detail?: string, constraint?: string) {
    super(message);
    this.name = 'PgError';
    this.code = code;
    this.detail = detail;
    this.constraint = constraint;
  }
}

/** A string bound to a query carried a NUL: the input that reached the database was never checked. */
export class TextWithNul extends Error {
  constructor() {
    super('text must not contain NUL characters (\\u0000)');
    this.name = 'TextWithNul';
  }
}
