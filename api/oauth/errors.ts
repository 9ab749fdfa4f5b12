// Typed protocol errors. Every step throws one of these; `oauthErrorResponse` is the one place that turns
// them into the RFC 6749 §5.2 (token, revoke; the device endpoints of RFC 8628 too), RFC 7591 §3.2.2
// (register) error body, and the authorize endpoint turns them into a redirect or an error page.

export class OAuthError extends Error {
  readonly error: string;
  readonly status: 400 | 401 | 403 | 429 | 500;
  /** Extra members of the error body (RFC 6749 §5.2 allows them), e.g. the new `interval` of slow_down. */
  readonly extra: Record<string, string | number>;
  constructor(error: string, description: string, status: 400 | 401 | 403 | 429 | 500 = 400, extra: Record<string, string | number> = {}) {
    super(description);
    this.error = error;
    this.status = status;
    this.extra = extra;
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', description);
  }
}

/** Client authentication failed. Always 401 with a Basic challenge (RFC 6749 §5.2). */
export class InvalidClient extends OAuthError {
  constructor(description: string) {
    super('invalid_client', description, 401);
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', description);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super('unauthorized_client', description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super('unsupported_grant_type', description);
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor(description: string) {
    super('unsupported_response_type', description);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super('invalid_scope', description);
  }
}

/** RFC 8707 §2: the requested resource is not one this server issues tokens for. */
export class InvalidTarget extends OAuthError {
  constructor(description: string) {
    super('invalid_target', description);
  }
}

export class AccessDenied extends OAuthError {
  constructor(description: string) {
    super('access_denied', description, 403);
  }
}

/** Over a per-address limit: 429 with Retry-After, in the RFC 6749 body (its temporarily_unavailable code). */
export class TooManyRequests extends OAuthError {
  readonly retryAfter: number;
  constructor(description: string, retryAfter: number) {
    super('temporarily_unavailable', description, 429);
    this.retryAfter = retryAfter;
  }
}

/** RFC 7591 §3.2.2 */
export class InvalidRedirectUri extends OAuthError {
  constructor(description: string) {
    super('invalid_redirect_uri', description);
  }
}

/** RFC 7591 §3.2.2 */
export class InvalidClientMetadata extends OAuthError {
  constructor(description: string) {
    super('invalid_client_metadata', description);
  }
}

/**
 * An authorization request error that must not be sent to the redirect_uri (unknown client, unregistered
 * redirect_uri): the person sees it as a page instead (RFC 6749 §4.1.2.1).
 */
export class NonRedirectableError extends OAuthError {}

/** Headers every OAuth JSON answer carries: tokens and errors are never cached (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * A WWW-Authenticate challenge (RFC 9110 §11.6.1) whose auth-params are quoted-strings. RFC 6750 §3 allows
 * neither '"' nor '\' (nor anything beyond printable ASCII) in error, error_description and scope, so such
 * characters are replaced, not escaped: a description that quotes a scope says 'read write'.
 */
export function challengeHeader(scheme: string, params: Record<string, string | undefined>): string {
  const printable = (v: string) => v.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
  const quoted = Object.entries(params).flatMap(([name, value]) => (value === undefined ? [] : [`${name}="${printable(value)}"`]));
  return quoted.length ? `${scheme} ${quoted.join(', ')}` : scheme;
}

/** The RFC error body and status for a protocol error. */
export function oauthErrorResponse(err: OAuthError, realm: string): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NO_STORE };
  if (err instanceof InvalidClient) headers['WWW-Authenticate'] = challengeHeader('Basic', { realm });
  if (err instanceof TooManyRequests) headers['Retry-After'] = String(err.retryAfter);
  return new Response(JSON.stringify({ error: err.error, error_description: err.message, ...err.extra }), { status: err.status, headers });
}
