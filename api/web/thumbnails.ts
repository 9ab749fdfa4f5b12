// Real video thumbnails served by the site (VIDEO_THUMBNAILS=proxy), so a reader's browser never calls the
// video host. The first request for a video fetches its thumbnail_url (only from THUMBNAIL_HOSTS, https, or
// http on a loopback host for tests; no redirects; an image type; at most 2 MB; 5 s) and keeps it under
// DATA_DIR/cache/thumbnails; later requests are answered from there. A source without an image (the sample
// videos' made-up ids answer 404) gets the video's title card, and the miss is remembered for a day. In the
// default mode ('card') this route steps aside and the prerendered title card (or its twin) answers.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from '../../src/lib/config.ts';
import { videoThumbnail } from '../../src/lib/read/thumbnails.ts';
import { etagFor } from '../static/index.ts';
import type { ContentState } from '../content/index.ts';

const MAX_BYTES = 2 * 1024 * 1024;
const TIMEOUT_MS = 5000;
const MISS_TTL_MS = 24 * 3600 * 1000;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ThumbnailProxyDeps {
  config: Pick<Config, 'dataDir' | 'siteName' | 'videoThumbnails' | 'thumbnailHosts'>;
  content: () => ContentState;
  /** For tests: the fetch to use. */
  fetch?: typeof fetch;
}

interface Cached {
  /** null: the source has no image (remembered until `until`). */
  type: string | null;
  until?: number;
}

/** Whether the proxy may fetch this URL at all. */
export function allowedSource(url: string, hosts: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (!hosts.includes(u.host.toLowerCase())) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname.toLowerCase()));
}

export function createThumbnailCache(deps: ThumbnailProxyDeps) {
  const dir = path.join(deps.config.dataDir, 'cache', 'thumbnails');
  const doFetch = deps.fetch ?? fetch;
  const inFlight = new Map<string, Promise<{ type: string; bytes: Buffer } | null>>();
  const fileOf = (url: string) => path.join(dir, createHash('sha256').update(url).digest('hex').slice(0, 32));

  async function readCached(url: string): Promise<{ type: string; bytes: Buffer } | null | undefined> {
    const base = fileOf(url);
    let meta: Cached;
    try {
      meta = JSON.parse(await fs.promises.readFile(`${base}.json`, 'utf8')) as Cached;
    } catch {
      return undefined;
    }
    if (meta.type === null) return meta.until && meta.until > Date.now() ? null : undefined;
    try {
      return { type: meta.type, bytes: await fs.promises.readFile(`${base}.img`) };
    } catch {
      return undefined;
    }
  }

  async function writeCached(url: string, value: { type: string; bytes: Buffer } | null): Promise<void> {
    await fs.promises.mkdir(dir, { recursive: true });
    const base = fileOf(url);
    const tmp = `${base}.${process.pid}.tmp`;
    if (value) {
      await fs.promises.writeFile(tmp, value.bytes);
      await fs.promises.rename(tmp, `${base}.img`);
    }
    await fs.promises.writeFile(tmp, JSON.stringify(value ? { type: value.type } : { type: null, until: Date.now() + MISS_TTL_MS }));
    await fs.promises.rename(tmp, `${base}.json`);
  }

  async function fetchImage(url: string): Promise<{ type: string; bytes: Buffer } | null> {
    try {
      const res = await doFetch(url, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS), headers: { Accept: 'image/webp,image/jpeg,image/png' } });
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      const declared = Number(res.headers.get('content-length') ?? 0);
      if (res.status !== 200 || !IMAGE_TYPES.has(type) || declared > MAX_BYTES) {
        await res.body?.cancel();
        return null;
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      return bytes.length > 0 && bytes.length <= MAX_BYTES ? { type, bytes } : null;
    } catch {
      return null; // network error or timeout: a title card now, try again after the miss expires
    }
  }

  /** The image for a source URL: from the cache, or fetched once however many requests wait for it. */
  return async function imageFor(url: string): Promise<{ type: string; bytes: Buffer } | null> {
    const cached = await readCached(url);
    if (cached !== undefined) return cached;
    let pending = inFlight.get(url);
    if (!pending) {
      pending = fetchImage(url).then(async (img) => {
        try {
          await writeCached(url, img);
        } catch {
          // A full or read-only disk costs the cache, not the answer.
        }
        return img;
      });
      pending.finally(() => inFlight.delete(url)).catch(() => {});
      inFlight.set(url, pending);
    }
    return pending;
  };
}

/**
 * Registered before the content routes: answers GET /api/videos/{id}/thumbnail in proxy mode, and steps
 * aside otherwise (or for an unknown video, whose 404 the content route gives).
 */
export function registerThumbnailProxy(app: OpenAPIHono, deps: ThumbnailProxyDeps): void {
  if (deps.config.videoThumbnails !== 'proxy') return;
  const imageFor = createThumbnailCache(deps);
  app.get('/api/videos/:video_id/thumbnail', async (c, next) => {
    const { snapshot } = deps.content();
    const v = snapshot.videosById.get(c.req.param('video_id'));
    if (!v) return next();
    const img = allowedSource(v.thumbnail_url, deps.config.thumbnailHosts) ? await imageFor(v.thumbnail_url) : null;
    const body = img ? img.bytes : Buffer.from(videoThumbnail(snapshot, v.video_id, deps.config.siteName)!);
    const headers = {
      'Content-Type': img ? img.type : 'image/svg+xml; charset=utf-8',
      ETag: etagFor(body),
      // A card may become the real image once the source has one; the image itself changes rarely.
      'Cache-Control': img ? 'public, max-age=86400' : 'public, max-age=3600',
      'Access-Control-Allow-Origin': '*',
    };
    if (c.req.header('if-none-match') === headers.ETag) return new Response(null, { status: 304, headers });
    return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  });
}
