// Page sizes of the prerendered lists that can grow with the corpus (channels hold thousands of videos).
export const CHANNEL_PAGE_SIZE = 60;
/** A tag page lists at most this many videos; the rest are found through search and the API. */
export const TAG_PAGE_VIDEOS = 60;

/** The URL of page n of a paged list whose first page is `base`. */
export function pageUrl(base: string, n: number): string {
  return n <= 1 ? base : `${base}/page/${n}`;
}
