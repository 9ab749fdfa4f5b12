// Title-card thumbnails for essays, digests and videos: a self-contained SVG, so every item has an image without
// an image pipeline or a binary dependency.
import { essayIn, type Snapshot } from '../content/model.ts';

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && (line + ' ' + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    lines.length = maxLines;
    lines[maxLines - 1] = lines[maxLines - 1].replace(/\s*\S*$/, ' …');
  }
  return lines;
}

export function titleCard(kicker: string, title: string, footer: string): string {
  const lines = wrap(title, 28, 4);
  const tspans = lines
    .map((l, i) => `<tspan x="80" dy="${i === 0 ? 0 : 84}">${escapeXml(l)}</tspan>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720" viewBox="0 0 1280 720" role="img" aria-label="${escapeXml(title)}">` +
    `<rect width="1280" height="720" fill="#0f2a3d"/><rect x="0" y="680" width="1280" height="40" fill="#e8a33d"/>` +
    `<text x="80" y="130" fill="#e8a33d" font-family="system-ui,sans-serif" font-size="36" font-weight="600">${escapeXml(kicker)}</text>` +
    `<text x="80" y="260" fill="#ffffff" font-family="Georgia,serif" font-size="68" font-weight="700">${tspans}</text>` +
    `<text x="80" y="640" fill="#b8c7d3" font-family="system-ui,sans-serif" font-size="30">${escapeXml(footer)}</text>` +
    `</svg>\n`
  );
}

export function essayThumbnail(snap: Snapshot, slug: string, siteName: string): string | null {
  const e = snap.essaysBySlug.get(slug);
  if (!e) return null;
  const t = essayIn(e);
  return titleCard('Essay', t.title, `${siteName} · ${t.date}`);
}

export function digestThumbnail(snap: Snapshot, date: string, siteName: string): string | null {
  const d = snap.digestsByDate.get(date);
  if (!d) return null;
  return titleCard(`Daily digest · ${d.date}`, d.items.map((i) => i.headline)[0] ?? d.title, `${siteName} · ${d.items.length} stories`);
}

/**
 * A video's card: what pages show unless an operator serves the real thumbnails through the site
 * (VIDEO_THUMBNAILS=proxy). The sample videos' thumbnail_url values name made-up ids, and hot-linking a
 * real one makes every reader's browser call the video host. It shows the channel and a play mark, not
 * the title: every place that shows the image prints the title beside it (cards, the video page, link
 * previews), and a second copy in the image only made each card twice as tall (issue 43, item 10).
 */
export function videoThumbnail(snap: Snapshot, videoId: string, siteName: string): string | null {
  const v = snap.videosById.get(videoId);
  if (!v) return null;
  const channel = wrap(snap.channelsById.get(v.channel)?.name ?? v.channel, 40, 1)[0];
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720" viewBox="0 0 1280 720" role="img" aria-label="${escapeXml(v.title)}">` +
    `<rect width="1280" height="720" fill="#0f2a3d"/><rect x="0" y="680" width="1280" height="40" fill="#e8a33d"/>` +
    `<circle cx="640" cy="330" r="120" fill="#e8a33d"/><path d="M600 260v140l120-70z" fill="#0f2a3d"/>` +
    `<text x="640" y="560" fill="#ffffff" font-family="system-ui,sans-serif" font-size="52" font-weight="600" text-anchor="middle">${escapeXml(channel)}</text>` +
    `<text x="80" y="640" fill="#b8c7d3" font-family="system-ui,sans-serif" font-size="30">${escapeXml(`${siteName} · ${v.date}`)}</text>` +
    `</svg>\n`
  );
}

/** The site's address of a video's thumbnail (a title card, or the real image proxied and cached). */
export function videoThumbnailPath(videoId: string): string {
  return `/api/videos/${encodeURIComponent(videoId)}/thumbnail`;
}
