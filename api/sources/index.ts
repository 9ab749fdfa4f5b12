// Sources: what the knowledge base can cite. Lists content, added pages, posts and comments in one feed;
// adds web pages fetched under a strict SSRF guard (guard.ts, fetch-page.ts) or pasted texts; drafts
// knowledge concepts from the sources a search finds (knowledge.ts) and proposes them.
export { registerSourceRoutes } from './routes.ts';
export { indexedSourceSearch, type SearchSources, type SourceHit } from './word-search.ts';
export { addressRefusal, resolvePublicAddress, SourceRefused } from './guard.ts';
