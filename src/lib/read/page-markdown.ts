// Markdown for agents that read pages: the `.md` twin of every page (`/videos/<id>.md`, `/essays.md`,
// `/index.html.md` for the home page …, as llms.txt promises) and /llms-full.txt, the whole corpus in one fetch.
// Pure functions of the snapshot and site, like every read; prerendered by src/lib/resources.ts and served
// by api/content for the same paths with a query string. Links are absolute: a twin read on its own, or
// pasted into a prompt, still points at the pages to cite.
import { essayIn, type Snapshot } from '../content/model.ts';
import type { Lang } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { CHANNEL_PAGE_SIZE, TAG_PAGE_VIDEOS } from '../../web/paging.ts';
import { pagePath, type ItemKind } from './links.ts';
import { listTags, taggedItems } from './tags.ts';
import { skillUrl } from './skills.ts';
import { pieceText, type Piece } from '../representation.ts';

/** How many items a list page's twin names (the rest: its JSON, which pages). */
const LIST_ITEMS = 100;
const LANG_NAME: Record<string, string> = { en: 'English', sl: 'Slovenian' };

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
/** Site links inside content (`](/videos/x)`) made absolute. */
const absoluteLinks = (md: string, origin: string) => md.replace(/\]\(\/(?!\/)/g, `](${origin}/`);
const withoutTitle = (md: string) => md.replace(/^\s*# [^\n]*\n+/, '');

function header(site: SiteContext, title: string, path: string, json: string | null, extra: string[] = []): string {
  const b = site.baseUrl;
  const facts = [`Page: ${b}${path === '/index' ? '/' : path}`, ...(json ? [`JSON: ${b}${json}`] : []), ...extra];
  return `# ${title}\n\n${facts.map((f) => `- ${f}`).join('\n')}\n`;
}

const link = (site: SiteContext, kind: ItemKind, id: string, title: string) => `[${title}](${site.baseUrl}${pagePath(kind, id)})`;

function videoLine(snap: Snapshot, site: SiteContext, id: string): string {
  const v = snap.videosById.get(id)!;
  const channel = snap.channelsById.get(v.channel)?.name ?? v.channel;
  return `- ${link(site, 'videos', v.video_id, v.title)} (${v.date}, ${channel})${v.summary ? `: ${oneLine(v.summary)}` : ''}`;
}

function more(site: SiteContext, shown: number, total: number, json: string): string {
  return total > shown ? `\n${total - shown} more: ${site.baseUrl}${json} (paged with limit and offset).\n` : '';
}

function home(snap: Snapshot, site: SiteContext): string {
  const d = snap.digests[0];
  return [
    header(site, site.siteName, '/index', '/api/latest', [`Everything for agents: ${site.baseUrl}/llms.txt, the whole corpus: ${site.baseUrl}/llms-full.txt`]),
    site.description,
    ...(d ? [`## Latest digest\n\n${link(site, 'digests', d.date, d.title)} (${d.date}): ${oneLine(d.intro)}`] : []),
    `## Latest videos\n\n${snap.videos.slice(0, 10).map((v) => videoLine(snap, site, v.video_id)).join('\n')}`,
    `## Latest essays\n\n${snap.essays.slice(0, 5).map((e) => `- ${link(site, 'essays', e.slug, essayIn(e).title)} (${essayIn(e).date}): ${oneLine(essayIn(e).description)}`).join('\n')}`,
    `## Sections\n\n${(['videos', 'essays', 'digests', 'knowledge', 'personas', 'channels'] as const).map((k) => `- [${k[0].toUpperCase()}${k.slice(1)}](${site.baseUrl}/${k}) (Markdown: ${site.baseUrl}/${k}.md)`).join('\n')}\n- [Tags](${site.baseUrl}/tags)`,
  ].join('\n\n');
}

function video(snap: Snapshot, site: SiteContext, id: string): string | null {
  const v = snap.videosById.get(id);
  if (!v) return null;
  const channel = snap.channelsById.get(v.channel);
  const digests = snap.digestsByVideo.get(id) ?? [];
  const concepts = snap.conceptsByVideo.get(id) ?? [];
  return [
    header(site, v.title, pagePath('videos', id), `/api/videos/${encodeURIComponent(id)}`, [
      `Date: ${v.date}`,
      `Channel: ${channel ? link(site, 'channels', channel.channel_id, channel.name) : v.channel}`,
      `Language: ${LANG_NAME[v.language] ?? v.language}`,
      `Tags: ${v.tags.join(', ') || 'none'}`,
      `Watch: ${v.url}`,
    ]),
    `## Summary\n\n${v.summary || 'Not summarised yet.'}`,
    ...(digests.length ? [`## In the digests\n\n${digests.map((d) => `- ${link(site, 'digests', d.date, d.title)}`).join('\n')}`] : []),
    ...(concepts.length ? [`## Knowledge concepts citing it\n\n${concepts.map((c) => `- ${link(site, 'knowledge', c.slug, c.title)}`).join('\n')}`] : []),
    ...(v.transcript ? [`## Transcript\n\n${absoluteLinks(v.transcript.trim(), site.baseUrl)}`] : []),
  ].join('\n\n');
}

function essay(snap: Snapshot, site: SiteContext, slug: string, lang?: Lang): string | null {
  const e = snap.essaysBySlug.get(slug);
  if (!e || (lang && (!e.languages.includes(lang) || lang === e.primary))) return null;
  const t = essayIn(e, lang);
  const path = lang ? `${pagePath('essays', slug)}/${lang}` : pagePath('essays', slug);
  const others = e.languages.filter((l) => l !== t.lang).map((l) => `${LANG_NAME[l] ?? l}: ${site.baseUrl}${l === e.primary ? pagePath('essays', slug) : `${pagePath('essays', slug)}/${l}`}.md`);
  return [
    header(site, t.title, path, `/api/essays/${encodeURIComponent(slug)}${lang ? `?lang=${lang}` : ''}`, [
      `Date: ${t.date}`,
      `Language: ${LANG_NAME[t.lang] ?? t.lang}`,
      ...(others.length ? [`Also in ${others.join('; ')}`] : []),
      `Tags: ${t.tags.join(', ') || 'none'}`,
    ]),
    `> ${oneLine(t.description)}`,
    absoluteLinks(withoutTitle(t.body).trim(), site.baseUrl),
  ].join('\n\n');
}

function digest(snap: Snapshot, site: SiteContext, date: string): string | null {
  const d = snap.digestsByDate.get(date);
  if (!d) return null;
  return [header(site, d.title, pagePath('digests', date), `/api/digests/${date}`, [`Date: ${d.date}`]), absoluteLinks(withoutTitle(d.content).trim(), site.baseUrl)].join('\n\n');
}

function concept(snap: Snapshot, site: SiteContext, slug: string): string | null {
  const c = snap.conceptsBySlug.get(slug);
  if (!c || c.draft) return null;
  const sources = c.sources.map((s) => {
    switch (s.type) {
      case 'video':
        return `- ${link(site, 'videos', s.id, snap.videosById.get(s.id)!.title)} (video)`;
      case 'essay':
        return `- ${link(site, 'essays', s.id, essayIn(snap.essaysBySlug.get(s.id)!).title)} (essay)`;
      case 'digest':
        return `- ${link(site, 'digests', s.id, snap.digestsByDate.get(s.id)!.title)} (digest)`;
      case 'web_page':
        return `- [${s.title}](${s.url}) (web page)`;
    }
  });
  return [
    header(site, c.title, pagePath('knowledge', slug), `/api/knowledge/${encodeURIComponent(slug)}`, [`Tags: ${c.tags.join(', ') || 'none'}`]),
    `> ${oneLine(c.summary)}`,
    absoluteLinks(withoutTitle(c.body).trim(), site.baseUrl),
    ...(sources.length ? [`## Sources\n\n${sources.join('\n')}`] : []),
    ...(c.related.length ? [`## Related concepts\n\n${c.related.map((r) => `- ${link(site, 'knowledge', r, snap.conceptsBySlug.get(r)!.title)}`).join('\n')}`] : []),
  ].join('\n\n');
}

function persona(snap: Snapshot, site: SiteContext, id: string): string | null {
  const p = snap.personasById.get(id);
  if (!p) return null;
  const modelfiles = [...p.modelfiles.keys()].map((k) => `- ${k.replace('/', ', ')}: ${site.baseUrl}/api/personas/modelfiles/${p.persona_id}/${k}`);
  return [
    header(site, p.name, pagePath('personas', id), `/api/personas/${encodeURIComponent(id)}`, [`Modes: ${p.modes.join(', ')}`, `Languages: ${p.languages.join(', ')}`]),
    `> ${oneLine(p.description)}`,
    absoluteLinks(withoutTitle(p.body).trim(), site.baseUrl),
    `## Modelfiles\n\n${modelfiles.join('\n')}\n\nChat with this persona: POST ${site.baseUrl}/api/chat/completions with "persona_id": "${p.persona_id}"; over MCP it is the prompt ${p.persona_id}-<mode>-<lang>.`,
  ].join('\n\n');
}

function channel(snap: Snapshot, site: SiteContext, id: string, page = 1): string | null {
  const c = snap.channelsById.get(id);
  if (!c) return null;
  const videos = snap.videosByChannel.get(id) ?? [];
  const pages = Math.max(1, Math.ceil(videos.length / CHANNEL_PAGE_SIZE));
  if (page < 1 || page > pages || (page > 1 && videos.length <= CHANNEL_PAGE_SIZE)) return null;
  const shown = videos.slice((page - 1) * CHANNEL_PAGE_SIZE, page * CHANNEL_PAGE_SIZE);
  const path = page > 1 ? `${pagePath('channels', id)}/page/${page}` : pagePath('channels', id);
  return [
    header(site, page > 1 ? `${c.name} (page ${page} of ${pages})` : c.name, path, `/api/channels/${encodeURIComponent(id)}${page > 1 ? `?limit=${CHANNEL_PAGE_SIZE}&offset=${(page - 1) * CHANNEL_PAGE_SIZE}` : ''}`, [
      `Videos: ${videos.length}`,
      `Source: ${c.url}`,
      ...(page < pages ? [`Next page: ${site.baseUrl}${pagePath('channels', id)}/page/${page + 1}.md`] : []),
    ]),
    ...(page === 1 && c.description ? [`> ${oneLine(c.description)}`] : []),
    ...(page === 1 && c.body ? [absoluteLinks(c.body.trim(), site.baseUrl)] : []),
    `## Videos\n\n${shown.map((v) => videoLine(snap, site, v.video_id)).join('\n')}`,
  ].join('\n\n');
}

function tag(snap: Snapshot, site: SiteContext, t: string): string | null {
  const { videos, essays } = taggedItems(snap, t);
  const concepts = taggedItems(snap, t).concepts.filter((c) => !c.draft);
  if (!videos.length && !essays.length && !concepts.length) return null;
  return [
    header(site, `Tagged “${t}”`, `/tags/${encodeURIComponent(t)}`, `/api/videos?tag=${encodeURIComponent(t)}`),
    ...(concepts.length ? [`## Knowledge\n\n${concepts.map((c) => `- ${link(site, 'knowledge', c.slug, c.title)}: ${oneLine(c.summary)}`).join('\n')}`] : []),
    ...(essays.length ? [`## Essays\n\n${essays.map((e) => `- ${link(site, 'essays', e.slug, essayIn(e).title)} (${essayIn(e).date})`).join('\n')}`] : []),
    ...(videos.length
      ? [`## Videos\n\n${videos.slice(0, TAG_PAGE_VIDEOS).map((v) => videoLine(snap, site, v.video_id)).join('\n')}${more(site, Math.min(videos.length, TAG_PAGE_VIDEOS), videos.length, `/api/videos?tag=${encodeURIComponent(t)}`)}`]
      : []),
  ].join('\n\n');
}

function list(snap: Snapshot, site: SiteContext, kind: string): string | null {
  const b = site.baseUrl;
  switch (kind) {
    case 'videos':
      return `${header(site, 'Videos', '/videos', '/api/videos', [`${snap.videos.length} videos, newest first`])}\n${snap.videos.slice(0, LIST_ITEMS).map((v) => videoLine(snap, site, v.video_id)).join('\n')}\n${more(site, Math.min(LIST_ITEMS, snap.videos.length), snap.videos.length, '/api/videos')}`;
    case 'essays':
      return `${header(site, 'Essays', '/essays', '/api/essays')}\n${snap.essays.map((e) => `- ${link(site, 'essays', e.slug, essayIn(e).title)} (${essayIn(e).date}; ${e.languages.join(', ')}): ${oneLine(essayIn(e).description)}`).join('\n')}\n`;
    case 'digests':
      return `${header(site, 'Daily digests', '/digests', '/api/digests')}\n${snap.digests.map((d) => `- ${link(site, 'digests', d.date, d.title)} (${d.date})`).join('\n')}\n`;
    case 'knowledge':
      return `${header(site, 'Knowledge', '/knowledge', '/api/knowledge')}\n${snap.concepts.filter((c) => !c.draft).map((c) => `- ${link(site, 'knowledge', c.slug, c.title)}: ${oneLine(c.summary)}`).join('\n')}\n`;
    case 'personas':
      return `${header(site, 'Personas', '/personas', '/api/personas')}\n${snap.personas.map((p) => `- ${link(site, 'personas', p.persona_id, p.name)}: ${oneLine(p.description)}`).join('\n')}\n`;
    case 'channels':
      return `${header(site, 'Channels', '/channels', '/api/channels')}\n${snap.channels.map((c) => `- ${link(site, 'channels', c.channel_id, c.name)} (${snap.videosByChannel.get(c.channel_id)?.length ?? 0} videos)`).join('\n')}\n`;
    case 'tags':
      return `${header(site, 'Tags', '/tags', '/api/tags')}\n${listTags(snap).items.map((t) => `- [${t.tag}](${b}/tags/${encodeURIComponent(t.tag)}) (${t.count})`).join('\n')}\n`;
    default:
      return null;
  }
}

const ensureNewline = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);

/** The Markdown twin at `path` (`/videos/<id>.md`, `/index.html.md`, …), or null when no page has that twin. */
export function pageMarkdown(snap: Snapshot, site: SiteContext, path: string): string | null {
  if (!path.endsWith('.md')) return null;
  let p: string;
  try {
    p = decodeURIComponent(path.slice(0, -3));
  } catch {
    return null;
  }
  if (p === '/index.html') return ensureNewline(home(snap, site));
  const m = /^\/(videos|essays|digests|knowledge|personas|channels|tags)(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?$/.exec(p);
  if (!m) return null;
  const [, kind, id, sub, n] = m;
  let out: string | null = null;
  if (!id) out = list(snap, site, kind);
  else if (!sub) {
    if (kind === 'videos') out = video(snap, site, id);
    else if (kind === 'essays') out = essay(snap, site, id);
    else if (kind === 'digests') out = digest(snap, site, id);
    else if (kind === 'knowledge') out = concept(snap, site, id);
    else if (kind === 'personas') out = persona(snap, site, id);
    else if (kind === 'channels') out = channel(snap, site, id);
    else if (kind === 'tags') out = tag(snap, site, id);
  } else if (kind === 'essays' && !n && (sub === 'en' || sub === 'sl')) out = essay(snap, site, id, sub);
  else if (kind === 'channels' && sub === 'page' && n && /^[1-9]\d*$/.test(n) && n !== '1') out = channel(snap, site, id, Number(n));
  return out === null ? null : ensureNewline(out);
}

/**
 * Every page's twin path, in a stable order: what the build prerenders; with the group of documents an
 * item's twin belongs to (src/lib/static-build/inputs.ts), null for twins that are always recomputed.
 */
export function* pageMarkdownPaths(snap: Snapshot): Generator<{ path: string; group: string | null }> {
  const list = (path: string) => ({ path, group: null });
  yield list('/index.html.md');
  for (const k of ['videos', 'essays', 'digests', 'knowledge', 'personas', 'channels', 'tags']) {
    yield k === 'essays' || k === 'digests' || k === 'knowledge' ? { path: `/${k}.md`, group: `list:${k}` } : list(`/${k}.md`);
  }
  for (const v of snap.videos) yield { path: `${pagePath('videos', v.video_id)}.md`, group: `video:${v.video_id}` };
  for (const e of snap.essays) {
    const group = `essay:${e.slug}`;
    yield { path: `${pagePath('essays', e.slug)}.md`, group };
    for (const l of e.languages) if (l !== e.primary) yield { path: `${pagePath('essays', e.slug)}/${l}.md`, group };
  }
  for (const d of snap.digests) yield { path: `${pagePath('digests', d.date)}.md`, group: `digest:${d.date}` };
  for (const c of snap.concepts) if (!c.draft) yield { path: `${pagePath('knowledge', c.slug)}.md`, group: `concept:${c.slug}` };
  for (const p of snap.personas) yield list(`${pagePath('personas', p.persona_id)}.md`);
  for (const c of snap.channels) {
    const group = `channel:${c.channel_id}`;
    yield { path: `${pagePath('channels', c.channel_id)}.md`, group };
    const pages = Math.ceil((snap.videosByChannel.get(c.channel_id)?.length ?? 0) / CHANNEL_PAGE_SIZE);
    for (let n = 2; n <= pages; n++) yield { path: `${pagePath('channels', c.channel_id)}/page/${n}.md`, group };
  }
  for (const t of listTags(snap).items) yield list(`/tags/${encodeURIComponent(t.tag)}.md`);
}

/**
 * /llms-full.txt: the whole corpus's Markdown in one document: every essay in every language, every digest,
 * knowledge concept and persona, and every video's summary (transcripts stay in each video's .md and JSON,
 * or the file would be mostly transcripts). Each part opens with the page to cite.
 */
export function llmsFullTxt(snap: Snapshot, site: SiteContext): string {
  let out = '';
  for (const piece of llmsFullParts(snap, site)) out += pieceText(piece);
  return out;
}

/**
 * /llms-full.txt in pieces, in order (llmsFullTxt is their concatenation): the static build encodes them a
 * few at a time instead of flattening one string of hundreds of MB (188 MB at 100k videos), and copies an
 * item's piece from the previous file when the item's input key did not move (static-build/pieces.ts).
 * An item's piece reads only what its group's key covers (static-build/inputs.ts): a video's its file and
 * its channel's name; an essay's, digest's or concept's its own file.
 */
export function* llmsFullParts(snap: Snapshot, site: SiteContext): Generator<Piece> {
  const b = site.baseUrl;
  const part = (title: string, path: string, body: string) => `\n\n## ${title}\n\nPage: ${b}${path}\n\n${absoluteLinks(withoutTitle(body).trim(), b)}`;
  yield `# ${site.siteName}: the whole corpus\n\n> ${site.description}\n\nGenerated ${site.generatedAt}. ${snap.essays.length} essays, ${snap.digests.length} digests, ` +
    `${snap.concepts.filter((c) => !c.draft).length} knowledge concepts, ${snap.personas.length} personas, ${snap.videos.length} videos (summaries; transcripts at each video's page + .md). ` +
    `Cite the Page line of a part. The index of this site: ${b}/llms.txt. Skills: ${snap.skills.map((s) => `${b}${skillUrl(s.name)}`).join(', ') || 'none'}.`;
  yield '\n\n# Essays';
  for (const e of snap.essays) {
    for (const l of e.languages) {
      yield {
        group: `essay:${e.slug}`,
        text: () => {
          const t = essayIn(e, l);
          return part(`${t.title} (${LANG_NAME[l] ?? l}, ${t.date})`, l === e.primary ? pagePath('essays', e.slug) : `${pagePath('essays', e.slug)}/${l}`, `> ${oneLine(t.description)}\n\n${t.body}`);
        },
      };
    }
  }
  yield '\n\n# Daily digests';
  for (const d of snap.digests) yield { group: `digest:${d.date}`, text: () => part(`${d.title} (${d.date})`, pagePath('digests', d.date), d.content) };
  yield '\n\n# Knowledge concepts';
  for (const c of snap.concepts) {
    if (!c.draft) yield { group: `concept:${c.slug}`, text: () => part(c.title, pagePath('knowledge', c.slug), `> ${oneLine(c.summary)}\n\n${c.body}`) };
  }
  yield '\n\n# Personas';
  for (const p of snap.personas) yield part(p.name, pagePath('personas', p.persona_id), `> ${oneLine(p.description)}\n\n${p.body}`);
  yield '\n\n# Videos';
  for (const v of snap.videos) {
    yield {
      group: `video:${v.video_id}`,
      text: () =>
        part(`${v.title} (${v.date})`, pagePath('videos', v.video_id), `Channel: ${snap.channelsById.get(v.channel)?.name ?? v.channel}. Tags: ${v.tags.join(', ') || 'none'}. Language: ${v.language}.\n\n${v.summary || 'Not summarised yet.'}`),
    };
  }
  yield '\n';
}
