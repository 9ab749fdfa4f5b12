// Prerenders every anonymous read of src/lib/resources.ts to its file in dist/ (see distFileFor): the
// read model with default parameters, the same function the server calls for the dynamic twin.
import type { APIRoute, GetStaticPaths } from 'astro';
import { buildInputs } from '../lib/build-inputs.ts';
import { prerenderedResources, type Resource } from '../lib/resources.ts';
import { CONTENT_TYPE, distFileFor } from '../lib/representation.ts';

export const prerender = true;

export const getStaticPaths = (() => {
  const { snapshot, site } = buildInputs();
  return [...prerenderedResources(snapshot, site)].map((resource) => ({
    params: { path: distFileFor(resource.path, resource.type) },
    props: { resource },
  }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { resource } = props as { resource: Resource };
  return new Response(resource.body, { headers: { 'Content-Type': CONTENT_TYPE[resource.type] } });
};
