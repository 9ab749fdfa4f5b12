// /agent-login.sh, the POSIX sh client of the device flow, and the folder of the credential file it writes.
// The script is built from its sections in order: the header (the site's values, usage), the options, the
// helpers, --refresh, the start or --poll of a sign-in, the wait for the approval and the saving.
import type { SiteContext } from '../../site.ts';

/** A value as one single-quoted sh word. */
const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** The folder under ~/.config for the credential file: the site name as a slug. */
export function credentialsFolder(site: SiteContext): string {
  return site.siteName.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'kb';
}

/**
 * /agent-login.sh: a POSIX sh client of the device flow (curl only) that signs in to the server it was
 * downloaded from and writes the credential file {server, api_key, user_email, issued_at} with mode 0600.
 * With --scope (and --resource, default {base}/mcp) it asks for OAuth tokens instead of an API key: api_key
 * is then an OAuth access token that /mcp takes as well as the REST API and chat, saved with its refresh
 * token, client_id, scope, resource and expires_at; --refresh renews it.
 * Site values enter the script only as single-quoted words (or comments), so no site name can inject code.
 */
export function agentLoginScript(site: SiteContext): string {
  return header(site) + SECTIONS.join('');
}

/** The script's opening: what it does, its options and environment, the site's values and usage(). */
function header(site: SiteContext): string {
  const slug = credentialsFolder(site);
  return `#!/bin/sh
# agent-login.sh: sign in to ${oneLine(site.siteName)} from a shell with the device flow
# (RFC 8628) and save an API key for your agents. Needs only a POSIX sh and curl.
#
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh
#
# It shows a code and a link; you approve in a browser where you are signed in; it saves
# {server, api_key, user_email, issued_at} as JSON in a file only you can read (mode 0600).
#
# In two steps, for agents whose shell shows output only when a command ends:
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --start   # prints the code and link, exits
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --poll    # waits for the approval, saves the key
# Between the two, the pending sign-in is kept in <credential file>.pending (mode 0600).
#
# One login for every surface, the MCP server included: --scope asks for OAuth tokens instead of an API key
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --scope 'read write'
# (--resource URL names the resource, default <server>/mcp; read is the default scope, write lets it act).
# api_key is then an OAuth access token (oat_...) for /mcp, the REST API and chat, valid one hour, saved
# with refresh_token, client_id, scope, resource and expires_at; renew it (the refresh token rotates) with
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --refresh
#
# Environment:
#   KB_SERVER       server to sign in to (default: the one this script came from)
#   KB_CREDENTIALS  credential file (default: \${XDG_CONFIG_HOME:-~/.config}/${slug}/credentials.json)
#   KB_CLIENT_NAME  the name the approval page shows for this program (default: agent-login.sh)
# Exit status: 0 signed in (or, with --start, the code is shown), 1 error, 2 the request was denied,
# 3 the code expired.
set -u
umask 077

SITE_NAME=${shQuote(site.siteName)}
DEFAULT_SERVER=${shQuote(site.baseUrl)}
KEY_PREFIX=${shQuote(site.keyPrefix)}
SERVER=\${KB_SERVER:-$DEFAULT_SERVER}
SERVER=\${SERVER%/}
CREDENTIALS=\${KB_CREDENTIALS:-\${XDG_CONFIG_HOME:-\${HOME:-.}/.config}/${slug}/credentials.json}
PENDING="$CREDENTIALS.pending"
MODE=all
RESOURCE=
SCOPE=
usage() {
  printf '%s\\n' 'usage: agent-login.sh [--start | --poll | --refresh] [--scope SCOPE] [--resource URL]' \\
    '  (no option)     show the code, wait for the approval, save the key' \\
    '  --start         show the code and link, keep the pending sign-in, exit' \\
    '  --poll          wait for the approval of the pending sign-in, save the key' \\
    "  --scope SCOPE   OAuth tokens instead of an API key, e.g. --scope 'read write' (read, write; moderate, admin)" \\
    "  --resource URL  the resource they are for (default with --scope: $SERVER/mcp)" \\
    '  --refresh       renew the saved OAuth access token with its refresh token'
}
`;
}

/** The command line: the mode, --scope and --resource; a scope alone means the MCP resource. */
const OPTIONS = `while [ $# -gt 0 ]; do
  case $1 in
    --start) MODE=start ;;
    --poll) MODE=poll ;;
    --refresh) MODE=refresh ;;
    --scope=*) SCOPE=\${1#--scope=} ;;
    --resource=*) RESOURCE=\${1#--resource=} ;;
    --scope | --resource)
      if [ $# -lt 2 ]; then
        printf 'agent-login: %s needs a value (try --help)\\n' "$1" >&2
        exit 1
      fi
      if [ "$1" = --scope ]; then SCOPE=$2; else RESOURCE=$2; fi
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      printf 'agent-login: unknown option %s (try --help)\\n' "$1" >&2
      exit 1
      ;;
  esac
  shift
done
# A scope asks for OAuth tokens, for the one resource there is unless told otherwise.
[ -z "$SCOPE" ] || [ -n "$RESOURCE" ] || RESOURCE="$SERVER/mcp"

`;

/** The helpers: messages, flat JSON, the POST, the server check, private files, the OAuth credential file. */
const HELPERS = `say() { printf '%s\\n' "$*"; }
fail() {
  status=$1
  shift
  printf 'agent-login: %s\\n' "$*" >&2
  exit "$status"
}

# One string or number field of the server's answer (flat JSON; no jq needed).
json_string() { printf '%s' "$1" | tr -d '\\r\\n' | sed -n 's/.*"'"$2"'"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p'; }
json_number() { printf '%s' "$1" | tr -d '\\r\\n' | sed -n 's/.*"'"$2"'"[[:space:]]*:[[:space:]]*\\([0-9][0-9]*\\).*/\\1/p'; }
# What we send is printable and has no quote or backslash, so it needs no JSON escaping.
json_safe() { printf '%s' "$1" | tr -d '"\\\\\\000-\\037\\177' | cut -c1-"\${2:-100}"; }
json_escape() { printf '%s' "$1" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g'; }

# POST the JSON on stdin: the device code never appears in the process list.
post_json() {
  curl -sS --max-time 30 -X POST -H 'Content-Type: application/json' -H 'Accept: application/json' \\
    --data-binary @- "$SERVER$1"
}

command -v curl >/dev/null 2>&1 || fail 1 'curl is needed (https://curl.se)'
case $SERVER in
  https://* | http://localhost | http://localhost[:/]* | http://127.0.0.1 | http://127.0.0.1[:/]* | http://\\[::1\\]*) ;;
  http://*) say "Warning: $SERVER is not https; the key will cross the network unencrypted." >&2 ;;
  *) fail 1 "KB_SERVER must be an http(s) URL, not: $SERVER" ;;
esac

# Writes $2 to the file $1, readable only by you: created empty with mode 0600 (umask 077, refusing to
# reuse an existing file), then filled and moved into place, so it is never readable by others.
write_private() {
  dir=$(dirname "$1")
  mkdir -p "$dir" || fail 1 "cannot create $dir"
  tmp="$1.tmp.$$"
  (set -C && : >"$tmp") 2>/dev/null || fail 1 "cannot create $tmp"
  chmod 600 "$tmp" || fail 1 "cannot restrict $tmp to mode 0600"
  if ! printf '%s\\n' "$2" >"$tmp" || ! mv -f "$tmp" "$1"; then
    rm -f "$tmp"
    fail 1 "cannot write $1"
  fi
}
# A terminal answer ends the pending sign-in of --start.
forget_pending() { [ "$MODE" = poll ] && rm -f "$PENDING"; return 0; }

# A time in seconds since 1970 as UTC ISO 8601 (GNU/busybox date, then BSD date).
iso_time() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$1" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null; }

# Saves OAuth tokens from the token answer $1 as the credential file: api_key is the access token (send it
# as the bearer, at /mcp too), with what renews it. $2 e-mail, $3 client_id, $4 resource, $5 scope if the
# answer has none.
save_oauth() {
  access=$(json_string "$1" access_token)
  refresh=$(json_string "$1" refresh_token)
  scope=$(json_string "$1" scope)
  lifetime=$(json_number "$1" expires_in)
  case $access in
    oat_*) ;;
    *) fail 1 'the server answered with something that is not an OAuth access token; nothing was saved.' ;;
  esac
  [ -n "$refresh" ] || fail 1 'the server answered without a refresh token; nothing was saved.'
  now=$(date +%s)
  write_private "$CREDENTIALS" "$(printf '{"server":"%s","api_key":"%s","user_email":"%s","issued_at":"%s","expires_at":"%s","refresh_token":"%s","client_id":"%s","scope":"%s","resource":"%s"}' \\
    "$(json_escape "$SERVER")" "$(json_escape "$access")" "$(json_escape "$2")" "$(iso_time "$now")" "$(iso_time $((now + \${lifetime:-3600})))" \\
    "$(json_escape "$refresh")" "$(json_escape "$3")" "$(json_escape "\${scope:-$5}")" "$(json_escape "$4")")"
}

`;

/** --refresh: renews the saved OAuth access token with its refresh token, and exits. */
const REFRESH = `if [ "$MODE" = refresh ]; then
  [ -f "$CREDENTIALS" ] || fail 1 "no credential file at $CREDENTIALS: sign in first, with --scope 'read write'"
  saved=$(cat "$CREDENTIALS") || fail 1 "cannot read $CREDENTIALS"
  [ "$(json_string "$saved" server)" = "$SERVER" ] || fail 1 "the credentials in $CREDENTIALS are for another server"
  refresh_token=$(json_string "$saved" refresh_token)
  client_id=$(json_string "$saved" client_id)
  [ -n "$refresh_token" ] && [ -n "$client_id" ] ||
    fail 1 "$CREDENTIALS holds an API key, which needs no refresh (90 days); for OAuth tokens sign in with --scope 'read write'"
  # On stdin, so the refresh token never appears in the process list.
  answer=$(printf 'grant_type=refresh_token&refresh_token=%s&client_id=%s' "$refresh_token" "$client_id" |
    curl -sS --max-time 30 -X POST -H 'Content-Type: application/x-www-form-urlencoded' -H 'Accept: application/json' \\
      --data-binary @- "$SERVER/api/oauth/v2/token") || fail 1 "cannot reach $SERVER"
  [ -n "$(json_string "$answer" access_token)" ] ||
    fail 1 "the refresh token was refused (used, expired or revoked); sign in again with --scope: $answer"
  save_oauth "$answer" "$(json_string "$saved" user_email)" "$client_id" "$(json_string "$saved" resource)" "$(json_string "$saved" scope)"
  say "Renewed. The new access token is saved in $CREDENTIALS as api_key, valid until $(json_string "$(cat "$CREDENTIALS")" expires_at)."
  exit 0
fi

`;

/** Starts the device flow and shows the code (--start keeps it and exits), or --poll picks the kept one up. */
const START_OR_POLL = `if [ "$MODE" = poll ]; then
  [ -f "$PENDING" ] || fail 1 "no pending sign-in in $PENDING: run with --start first"
  pending=$(cat "$PENDING") || fail 1 "cannot read $PENDING"
  [ "$(json_string "$pending" server)" = "$SERVER" ] || fail 1 "the pending sign-in in $PENDING is for another server; run --start again"
  device_code=$(json_string "$pending" device_code)
  RESOURCE=$(json_string "$pending" resource)
  interval=$(json_number "$pending" interval)
  expires_at=$(json_number "$pending" expires_at)
  [ -n "$device_code" ] && [ -n "$expires_at" ] || fail 1 "$PENDING is damaged; run --start again"
  [ -n "$interval" ] && [ "$interval" -ge 1 ] || interval=5
  expires_in=$((expires_at - $(date +%s)))
  if [ "$expires_in" -le 0 ]; then
    forget_pending
    fail 3 'the code expired before it was approved; run --start again.'
  fi
  say "Waiting for the approval of the sign-in started with --start (the code expires in $((expires_in / 60 + 1)) min)..."
else
  name=$(json_safe "\${KB_CLIENT_NAME:-agent-login.sh}")
  host=$(json_safe "$(uname -n 2>/dev/null)")
  [ -n "$name" ] || name=agent-login.sh
  [ -n "$host" ] || host=unknown

  oauth=
  [ -z "$RESOURCE" ] || oauth="$oauth$(printf ',"resource":"%s"' "$(json_safe "$RESOURCE" 500)")"
  [ -z "$SCOPE" ] || oauth="$oauth$(printf ',"scope":"%s"' "$(json_safe "$SCOPE" 200)")"
  answer=$(printf '{"client_name":"%s","client_host":"%s"%s}' "$name" "$host" "$oauth" | post_json /api/oauth/device) ||
    fail 1 "cannot reach $SERVER"
  device_code=$(json_string "$answer" device_code)
  user_code=$(json_string "$answer" user_code)
  verification_uri=$(json_string "$answer" verification_uri)
  verification_uri_complete=$(json_string "$answer" verification_uri_complete)
  interval=$(json_number "$answer" interval)
  expires_in=$(json_number "$answer" expires_in)
  [ -n "$device_code" ] && [ -n "$user_code" ] || fail 1 "$SERVER did not start a sign-in: $answer"
  [ -n "$interval" ] && [ "$interval" -ge 1 ] || interval=5
  [ -n "$expires_in" ] || expires_in=600

  say "To sign in to $SITE_NAME, open this link in a browser and approve:"
  say ""
  say "    $verification_uri_complete"
  say ""
  say "or go to $verification_uri and enter the code $user_code"
  if [ "$MODE" = start ]; then
    write_private "$PENDING" "$(printf '{"server":"%s","device_code":"%s","interval":%s,"expires_at":%s,"resource":"%s"}' \\
      "$(json_escape "$SERVER")" "$device_code" "$interval" "$(($(date +%s) + expires_in))" "$(json_escape "$RESOURCE")")"
    say "Approve only if the page shows the same code. The code expires in $((expires_in / 60)) min."
    say "Then run:  curl -fsS $SERVER/agent-login.sh | sh -s -- --poll"
    exit 0
  fi
  say "Approve only if the page shows the same code. Waiting (the code expires in $((expires_in / 60)) min)..."
fi

`;

/** Polls the token endpoint every interval until the sign-in is approved, denied or expired. */
const WAIT_FOR_APPROVAL = `waited=0
while :; do
  sleep "$interval"
  waited=$((waited + interval))
  if ! answer=$(printf '{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","device_code":"%s"}' "$device_code" |
    post_json /api/oauth/token); then
    [ "$waited" -lt "$expires_in" ] || fail 1 "cannot reach $SERVER"
    continue # a network hiccup: try again at the next interval
  fi
  api_key=$(json_string "$answer" access_token)
  [ -n "$api_key" ] && break
  case $(json_string "$answer" error) in
    authorization_pending) ;;
    slow_down)
      next=$(json_number "$answer" interval)
      interval=\${next:-$((interval + 5))}
      ;;
    access_denied)
      forget_pending
      fail 2 'the request was denied; nothing was saved.'
      ;;
    expired_token)
      forget_pending
      fail 3 'the code expired before it was approved; run this script again.'
      ;;
    invalid_grant)
      forget_pending
      fail 1 "the sign-in was already used or is unknown; run this script again: $answer"
      ;;
    *) fail 1 "unexpected answer from $SERVER/api/oauth/token: $answer" ;;
  esac
  [ "$waited" -le $((expires_in + 60)) ] || fail 3 'no approval arrived in time; run this script again.'
done

`;

/** Saves the OAuth tokens or the API key in the credential file and says how to use them. */
const SAVE_CREDENTIALS = `user_email=$(json_string "$answer" user_email)
if [ -n "$RESOURCE" ]; then
  save_oauth "$answer" "$user_email" "$(json_string "$answer" client_id)" "$RESOURCE" ''
  forget_pending
  say ""
  say "Signed in\${user_email:+ as $user_email}. An OAuth access token for $RESOURCE (scope: $(json_string "$answer" scope)) is saved"
  say "in $CREDENTIALS (readable only by you) as api_key, with its refresh token."
  say "Send it as: Authorization: Bearer <api_key>   at $RESOURCE, on the REST API and for chat (check with $SERVER/api/auth/me)"
  say "It lasts one hour; renew it with:  curl -fsS $SERVER/agent-login.sh | sh -s -- --refresh"
  exit 0
fi
case $api_key in
  "$KEY_PREFIX"*) ;;
  *) fail 1 'the server answered with something that is not an API key; nothing was saved.' ;;
esac
issued_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)

write_private "$CREDENTIALS" "$(printf '{"server":"%s","api_key":"%s","user_email":"%s","issued_at":"%s"}' \\
  "$(json_escape "$SERVER")" "$api_key" "$(json_escape "$user_email")" "$issued_at")"
forget_pending

say ""
say "Signed in\${user_email:+ as $user_email}. The API key is saved in $CREDENTIALS (readable only by you)."
say "Send it as: Authorization: Bearer <api_key>   (check with $SERVER/api/auth/me)"
`;

/** The script after its header, section by section. */
const SECTIONS = [OPTIONS, HELPERS, REFRESH, START_OR_POLL, WAIT_FOR_APPROVAL, SAVE_CREDENTIALS];
