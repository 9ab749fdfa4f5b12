// What the history of a repository says about notes: when each note last changed (for lists), the
// recent-activity feed and one note's history (commits newest first, one item per note a commit changed),
// and titles. Results depend only on object ids, so they are cached by them.
import * as g from './git.ts';
import type { GitContext } from './git.ts';
import { titleOf } from './slug.ts';

export interface HistoryItem {
  commit: string;
  slug: string;
  action: 'create' | 'update' | 'delete';
  message: string;
  author: { name: string; email: string };
  time: string;
  blob: string | null;
}

const changeCache = new Map<string, Map<string, { time: string; commit: string }>>();
const titleCache = new Map<string, string | null>();
const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();

/** When each current note last changed, and in which commit (one walk per branch tip, cached). */
export async function lastChanges(ctx: GitContext, tip: string | null): Promise<Map<string, { time: string; commit: string }>> {
  const key = `${ctx.gitdir}:${tip}`;
  const hit = changeCache.get(key);
  if (hit) return hit;
  const current = await g.notesAt(ctx, tip);
  const out = new Map<string, { time: string; commit: string }>();
  for await (const { oid, commit } of g.walkCommits(ctx, tip)) {
    if (out.size >= current.size) break;
    if (commit.parent.length > 1) continue; // a merge repeats changes its parents made
    for (const d of await g.notesChanged(ctx, oid, commit.parent[0] ?? null)) {
      if (current.has(d.slug) && !out.has(d.slug)) out.set(d.slug, { time: isoTime(commit.author.timestamp), commit: oid });
    }
  }
  if (changeCache.size >= 500) changeCache.delete(changeCache.keys().next().value!);
  changeCache.set(key, out);
  return out;
}

/** Commits that touched notes, newest first, one item per note changed; `slug` scopes to one note. */
export async function noteHistory(ctx: GitContext, tip: string | null, opts: { limit: number; slug?: string }): Promise<HistoryItem[]> {
  const items: HistoryItem[] = [];
  for await (const { oid, commit } of g.walkCommits(ctx, tip)) {
    if (items.length >= opts.limit) break;
    if (commit.parent.length > 1) continue;
    for (const d of await g.notesChanged(ctx, oid, commit.parent[0] ?? null)) {
      if (opts.slug && d.slug !== opts.slug) continue;
      if (items.length >= opts.limit) break;
      items.push({
        commit: oid,
        slug: d.slug,
        action: d.before === null ? 'create' : d.after === null ? 'delete' : 'update',
        message: commit.message.trim().slice(0, 2000),
        author: { name: commit.author.name, email: commit.author.email },
        time: isoTime(commit.author.timestamp),
        blob: d.after,
      });
    }
  }
  return items;
}

/** A note's title by its blob (cached: the same blob always has the same title). */
export async function titleFor(ctx: GitContext, blob: string, slug: string): Promise<string> {
  if (!titleCache.has(blob)) {
    const t = titleOf(await g.readText(ctx, blob), '');
    if (titleCache.size >= 20_000) titleCache.delete(titleCache.keys().next().value!);
    titleCache.set(blob, t || null);
  }
  return titleCache.get(blob) ?? slug;
}
