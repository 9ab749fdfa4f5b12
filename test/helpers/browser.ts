// A minimal browser for protocol tests: keeps cookies, follows redirects one hop at a time (so tests can
// look at each), and submits HTML forms. Enough for the OpenID Connect and OAuth consent flows.
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every URL visited, in order, redirects included. */
  readonly visited: string[] = [];
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** One request, no redirect following. Same-origin requests carry Origin like a browser's would. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const abs = new URL(url, this.origin).href;
    this.visited.push(abs);
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('Cookie', this.cookieHeader());
    if (init.method && init.method !== 'GET' && !headers.has('Origin')) headers.set('Origin', new URL(abs).origin);
    const res = await fetch(abs, { ...init, headers, redirect: 'manual' });
    this.remember(res);
    return res;
  }

  /** Follows redirects until a non-redirect answer (or `stopAt` matches a Location). */
  async follow(url: string, init: RequestInit = {}, stopAt?: RegExp): Promise<Response> {
    let res = await this.request(url, init);
    let current = new URL(url, this.origin).href;
    for (let hops = 0; hops < 20 && res.status >= 300 && res.status < 400; hops++) {
      const location = new URL(res.headers.get('location')!, current).href;
      if (stopAt?.test(location)) return res;
      await res.arrayBuffer();
      current = location;
      res = await this.request(location);
    }
    return res;
  }

  /** Submits the first form on an HTML page whose action matches, with the given fields. */
  async submit(html: string, pageUrl: string, actionPattern: RegExp, fields: Record<string, string>, stopAt?: RegExp): Promise<Response> {
    const forms = [...html.matchAll(/<form[^>]*action="([^"]+)"[^>]*>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    const action = forms.find((a) => actionPattern.test(a));
    if (!action) throw new Error(`no form matching ${actionPattern} on ${pageUrl}; forms: ${forms.join(', ')}`);
    const hidden = Object.fromEntries([...html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    return this.follow(new URL(action, pageUrl).href, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden, ...fields }).toString(),
    }, stopAt);
  }
}

/**
 * Signs a person in through the real flow: /api/auth/idp/login → the identity provider's e-mail form →
 * callback → session cookie. Returns the browser (holding kb_session) and the final response.
 */
export async function signInThroughIdp(origin: string, email: string, name = '', loginQuery = ''): Promise<{ browser: Browser; final: Response }> {
  const browser = new Browser(origin);
  const page = await browser.follow(`/api/auth/idp/login${loginQuery}`);
  const html = await page.text();
  if (!/name="email"/.test(html)) throw new Error(`expected the sign-in form, got ${page.status}: ${html.slice(0, 300)}`);
  const final = await browser.submit(html, browser.visited.at(-1)!, /\/login$/, { email, name }, /^(?!.*\/(idp|api\/auth\/idp)\/)/);
  return { browser, final };
}
