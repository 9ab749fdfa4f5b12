// Link helpers for pages.

/** "YouTube" for YouTube links, otherwise the host name without www. */
export function sourceHostName(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
  if (host === 'youtube.com' || host === 'youtu.be' || host.endsWith('.youtube.com')) return 'YouTube';
  if (host === 'vimeo.com') return 'Vimeo';
  return host;
}
