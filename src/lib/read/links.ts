// How items link to each other. People follow `url` to a page; agents (agent=true) get the API document
// instead, with ?agent=true kept so every hop stays machine-readable. `api_url` is always the JSON twin.
export type ItemKind = 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'channels' | 'posts';

export function apiUrl(kind: ItemKind, id: string): string {
  return `/api/${kind}/${encodeURIComponent(id)}`;
}

export function itemUrl(kind: ItemKind, id: string, agent: boolean): string {
  return agent ? `${apiUrl(kind, id)}?agent=true` : `/${kind}/${encodeURIComponent(id)}`;
}

/** Common shape of a paged list: the page's items and what a client needs to fetch the next one. */
export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

export function page<T>(all: readonly T[], limit: number, offset: number): Page<T> {
  return { total: all.length, limit, offset, items: all.slice(offset, offset + limit) };
}
