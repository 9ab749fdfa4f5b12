// Persona reads: the list, one persona, and one modelfile per persona, mode and language.
import type { Persona, Snapshot } from '../content/model.ts';
import { apiUrl, itemUrl, pageUrl, type LinkOptions } from './links.ts';

export function modelfileUrl(personaId: string, mode: string, lang: string): string {
  return `/api/personas/modelfiles/${encodeURIComponent(personaId)}/${encodeURIComponent(mode)}/${encodeURIComponent(lang)}`;
}

function personaItem(p: Persona, agent = false, origin = '') {
  return {
    persona_id: p.persona_id,
    name: p.name,
    description: p.description,
    languages: p.languages,
    modes: p.modes,
    url: itemUrl('personas', p.persona_id, agent),
    api_url: apiUrl('personas', p.persona_id),
    page_url: pageUrl('personas', p.persona_id, origin),
  };
}

export function listPersonas(snap: Snapshot, origin = '') {
  return { total: snap.personas.length, items: snap.personas.map((p) => personaItem(p, false, origin)) };
}

export function getPersona(snap: Snapshot, personaId: string, opts: LinkOptions) {
  const p = snap.personasById.get(personaId);
  if (!p) return null;
  return {
    ...personaItem(p, opts.agent, opts.origin),
    about: p.body,
    modelfiles: p.modes.flatMap((mode) =>
      p.languages.map((lang) => ({ mode, lang, url: modelfileUrl(p.persona_id, mode, lang) })),
    ),
  };
}

export function getModelfile(snap: Snapshot, personaId: string, mode: string, lang: string) {
  const text = snap.personasById.get(personaId)?.modelfiles.get(`${mode}/${lang}`);
  if (text === undefined) return null;
  return { persona_id: personaId, mode, lang, modelfile: text, url: modelfileUrl(personaId, mode, lang) };
}
