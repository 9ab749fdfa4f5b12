// Skill reads: installable Markdown skills for agents.
import type { Snapshot } from '../content/model.ts';

export function skillUrl(name: string): string {
  return `/api/skills/${encodeURIComponent(name)}`;
}

export function listSkills(snap: Snapshot) {
  return {
    total: snap.skills.length,
    items: snap.skills.map((s) => ({ name: s.name, description: s.description, url: skillUrl(s.name) })),
  };
}

export function getSkill(snap: Snapshot, name: string): string | null {
  return snap.skillsByName.get(name)?.source ?? null;
}
