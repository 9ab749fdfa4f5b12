// A text as a regular expression that matches exactly it (RegExp.escape, ES2025, once the project's
// TypeScript library has it).
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
