// If-Match (RFC 9110 §13.1.1) for the resources that carry a version ETag: comments, posts and post essays.
// - `*` holds for any current version; otherwise one listed entity-tag must equal the current one by the
//   strong comparison (§8.8.3.2): a weak validator (W/"…") never matches, whatever its opaque-tag
// - the compression middleware gives a compressed answer the ETag's encoding variant ("…-br", "…-gz":
//   api/static/compression.ts); that names the same version, so it matches as the identity ETag does
// - a bare value without quotes (pst_….2) is taken as the quoted one it names, as the essay always took it
// The caller compares inside the write's transaction, so no other write can come between.

interface EntityTag {
  weak: boolean;
  opaque: string;
}

const TAG = /[\s,]*(W\/)?(?:"([^"]*)"|([^\s,"]+))\s*(?=,|$)/y;

/** The entity-tags of an If-Match value, or null when it is not a list of them. */
function entityTags(value: string): EntityTag[] | null {
  const tags: EntityTag[] = [];
  let at = 0;
  while (!/^[\s,]*$/.test(value.slice(at))) {
    TAG.lastIndex = at;
    const m = TAG.exec(value);
    if (!m) return null;
    tags.push({ weak: m[1] !== undefined, opaque: m[2] ?? m[3] });
    at = TAG.lastIndex;
  }
  return tags;
}

/** The opaque-tag of an ETag this server made (`"…"`). */
const opaqueOf = (etag: string) => etag.replace(/^"|"$/g, '');

/** Whether the request's If-Match value (undefined: no header) lets a write to the version `current` go on. */
export function ifMatchHolds(ifMatch: string | undefined, current: string): boolean {
  if (ifMatch === undefined || ifMatch.trim() === '*') return true;
  const mine = opaqueOf(current);
  const tags = entityTags(ifMatch) ?? [];
  return tags.some((t) => !t.weak && (t.opaque === mine || t.opaque.replace(/-(?:br|gz)$/, '') === mine));
}

/** What a 412 says to do, for a resource whose current version is `etag`. */
export function staleHint(change: string, etag: string): string {
  return `current holds the version stored now: ${change}, then send it again with If-Match: ${etag} (an ETag as GET returns it, quoted; a weak W/ one never matches).`;
}

/** The If-Match request header as /openapi.json documents it. */
export const IF_MATCH_DESCRIPTION = 'The ETag of the version you read (quoted, as GET returned it). With it, the change is made only if no one changed the item since: otherwise 412 with the current version. A weak W/ ETag never matches.';

/** OpenAPI response headers of an answer that carries its resource's version. */
export const ETAG_HEADER = { ETag: { description: 'The strong ETag of this version: send it as If-Match with a change.', schema: { type: 'string' as const } } };

/** OpenAPI response headers of a 201. */
export const CREATED_HEADERS = { Location: { description: 'The absolute URL of the new resource.', schema: { type: 'string' as const, format: 'uri' } }, ...ETAG_HEADER };
