// The canonical form of a page URL, the key that makes a second POST of the same page a 409.

/** Query parameters that only track where a click came from; they never change the page. */
const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|yclid|_ga|ref_src)$/i;

/**
 * Lower-case scheme and host, no default port, no credentials, no fragment, no tracking parameters, the
 * other parameters sorted, and no trailing slash on a non-root path. Two URLs with the same canonical form
 * are the same page.
 */
export function canonicalUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = '';
  u.username = '';
  u.password = '';
  const params = [...u.searchParams].filter(([k]) => !TRACKING.test(k)).sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  u.search = new URLSearchParams(params).toString();
  if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, '') || '/';
  return u.toString();
}

const bareHost = (h: string) => h.toLowerCase().replace(/^www\./, '');

/**
 * The page's canonical URL: its rel=canonical when that is http(s) on the same site (a page may not claim
 * another site's address and so block that site's pages as duplicates), else the URL it was fetched from.
 */
export function pageCanonicalUrl(fetchedUrl: string, relCanonical: string | undefined): string {
  if (relCanonical) {
    try {
      const c = new URL(relCanonical);
      if ((c.protocol === 'http:' || c.protocol === 'https:') && bareHost(c.hostname) === bareHost(new URL(fetchedUrl).hostname)) return canonicalUrl(c.toString());
    } catch {
      // an unusable rel=canonical is ignored
    }
  }
  return canonicalUrl(fetchedUrl);
}
