// Published posts in search: the posts domain reports publications and removals through its PostListener
// hook, and this keeps the search service's live index in step, so a post is found by the next search
// after it is published. At start, and into the service of a new build, syncPublishedPosts adds them all.
import type { PostListener } from '../posts/routes.ts';
import type { PostRow, PostStore } from '../../src/lib/data/posts/store.ts';
import { documentFromPost, type SearchDocument, type SearchService } from '../../src/lib/search/index.ts';

export function postDocument(post: PostRow, essay: string): SearchDocument {
  return documentFromPost({
    post_id: post.id,
    slug: post.slug,
    title: post.title,
    summary: post.summary,
    tags: JSON.parse(post.tags) as string[],
    lang: post.lang,
    date: (post.published_at ?? post.updated_at).slice(0, 10),
    body: essay,
  });
}

/**
 * @example
 * registerPostRoutes(app, { ...community, posts: searchPostListener(() => search) })
 */
export function searchPostListener(search: () => SearchService, log: (m: string) => void = console.error): PostListener {
  return {
    published(post, essay) {
      // Embedding is asynchronous (a transformer model runs off the event loop); the post write has
      // already been answered, and a failure here must not undo it.
      search()
        .addDocument(postDocument(post, essay))
        .catch((err: Error) => log(`search: post ${post.id} could not be indexed: ${err.message}`));
    },
    removed(postId) {
      search().removeDocument('post', postId);
    },
  };
}

/**
 * Brings the live index in step with the posts `ids` as the database has them now: a published one is
 * added or refreshed, any other (a draft, back in review, deleted, gone) is removed. What another
 * instance's publication, edit or removal calls for (LISTEN kb_posts), one post at a time.
 */
export async function refreshPublishedPosts(search: SearchService, store: Pick<PostStore, 'get' | 'essay'>, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const post = await store.get(id);
    if (post && post.status === 'published') await search.addDocument(postDocument(post, (await store.essay(post.id))?.body ?? ''));
    else search.removeDocument('post', id);
  }
}

/**
 * Makes the live index hold the published posts: adds or refreshes each, and removes the posts it held
 * when the sync began that are no longer published. (Posts the listener adds while this runs are left
 * alone, so a publication during a sync is not undone.) For a new service at start or after a rebuild.
 */
export async function syncPublishedPosts(search: SearchService, store: Pick<PostStore, 'listPublished' | 'essay'>): Promise<void> {
  const heldBefore = search.liveDocuments().filter((d) => d.type === 'post').map((d) => d.id);
  const published = new Set<string>();
  for (let offset = 0; ; offset += 500) {
    const { rows } = await store.listPublished({ sort: 'oldest', limit: 500, offset });
    for (const post of rows) {
      published.add(post.id);
      await search.addDocument(postDocument(post, (await store.essay(post.id))?.body ?? ''));
    }
    if (rows.length < 500) break;
  }
  for (const id of heldBefore) if (!published.has(id)) search.removeDocument('post', id);
}
