// A feed host on loopback serving channel feeds in YouTube's Atom format, with switchable failures:
// 500s, hanging, malformed XML, slow or delayed answers; it honours If-None-Match like YouTube's CDN, and
// counts how many requests it answers at once.
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FeedVideo {
  id: string;
  title: string;
  published: string;
  description: string;
}

export function atomFeed(channelId: string, name: string, videos: FeedVideo[]): string {
  const ucid = `UC${createHash('sha1').update(channelId).digest('base64url').slice(0, 22)}`;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${ucid}"/>
 <id>yt:channel:${ucid.slice(2)}</id>
 <yt:channelId>${ucid.slice(2)}</yt:channelId>
 <title>${esc(name)}</title>
 <link rel="alternate" href="https://www.youtube.com/channel/${ucid}"/>
 <author>
  <name>${esc(name)}</name>
  <uri>https://www.youtube.com/channel/${ucid}</uri>
 </author>
 <published>2024-01-01T00:00:00+00:00</published>
${videos
  .map(
    (v) => ` <entry>
  <id>yt:video:${v.id}</id>
  <yt:videoId>${v.id}</yt:videoId>
  <yt:channelId>${ucid.slice(2)}</yt:channelId>
  <title>${esc(v.title)}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${v.id}"/>
  <author>
   <name>${esc(name)}</name>
   <uri>https://www.youtube.com/channel/${ucid}</uri>
  </author>
  <published>${v.published}</published>
  <updated>${v.published}</updated>
  <media:group>
   <media:title>${esc(v.title)}</media:title>
   <media:content url="https://www.youtube.com/v/${v.id}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="https://i1.ytimg.com/vi/${v.id}/hqdefault.jpg" width="480" height="360"/>
   <media:description>${esc(v.description)}</media:description>
   <media:community>
    <media:starRating count="12" average="5.00" min="1" max="5"/>
    <media:statistics views="345"/>
   </media:community>
  </media:group>
 </entry>`,
  )
  .join('\n')}
</feed>
`;
}

export type Behaviour = 'ok' | 'error500' | 'hang' | 'malformed' | 'slow' | 'delayed';

export interface FeedHost {
  url: string;
  feeds: Map<string, string>;
  behaviour: Map<string, Behaviour>;
  requests: { path: string; conditional: boolean; status: number }[];
  /** The most requests the host was answering at once. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export async function startFeedHost(): Promise<FeedHost> {
  const feeds = new Map<string, string>();
  const behaviour = new Map<string, Behaviour>();
  const requests: FeedHost['requests'] = [];
  const hanging = new Set<http.ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    const path = (req.url ?? '').split('?')[0];
    const conditional = req.headers['if-none-match'] !== undefined;
    const b = behaviour.get(path) ?? 'ok';
    const body = feeds.get(path);
    const done = (status: number) => requests.push({ path, conditional, status });
    if (b === 'hang') {
      hanging.add(res);
      done(0);
      return;
    }
    if (b === 'error500') {
      res.writeHead(500).end('upstream exploded');
      return done(500);
    }
    if (!body) {
      res.writeHead(404).end();
      return done(404);
    }
    const served = b === 'malformed' ? body.slice(0, Math.floor(body.length / 2)) : body;
    const etag = `"${createHash('sha1').update(served).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ETag: etag }).end();
      return done(304);
    }
    const send = () => {
      res.writeHead(200, { 'Content-Type': 'application/atom+xml; charset=UTF-8', ETag: etag });
      res.end(served);
      done(200);
    };
    if (b === 'slow') setTimeout(send, 3000);
    else if (b === 'delayed') setTimeout(send, 200);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    feeds,
    behaviour,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
