// Ollama-style Modelfiles, parsed properly: FROM, PARAMETER (typed, repeatable for `stop`), SYSTEM in
// one line or between triple quotes, TEMPLATE and MESSAGE kept for completeness. Comments (#) and
// instructions are case-insensitive, as in Ollama.
export interface Modelfile {
  from: string | null;
  system: string | null;
  parameters: Record<string, number | string | string[]>;
  template: string | null;
  messages: { role: string; content: string }[];
}

export class ModelfileError extends Error {}

const NUMERIC = new Set(['temperature', 'top_p', 'top_k', 'num_ctx', 'num_predict', 'repeat_penalty', 'repeat_last_n', 'seed', 'min_p', 'mirostat', 'mirostat_eta', 'mirostat_tau', 'tfs_z', 'num_gpu', 'num_thread']);

/** Reads a value that may be """multi-line""", "quoted" or bare, starting at lines[i] after the keyword. */
function readValue(rest: string, lines: string[], i: number): { value: string; next: number } {
  const trimmed = rest.trimStart();
  if (trimmed.startsWith('"""')) {
    const after = trimmed.slice(3);
    const close = after.indexOf('"""');
    if (close >= 0) return { value: after.slice(0, close), next: i + 1 };
    const parts = [after];
    for (let j = i + 1; j < lines.length; j++) {
      const end = lines[j].indexOf('"""');
      if (end >= 0) {
        parts.push(lines[j].slice(0, end));
        return { value: parts.join('\n').replace(/^\n/, '').replace(/\n$/, ''), next: j + 1 };
      }
      parts.push(lines[j]);
    }
    throw new ModelfileError(`unterminated """ starting on line ${i + 1}`);
  }
  if (trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2) return { value: JSON.parse(trimmed), next: i + 1 };
  return { value: trimmed, next: i + 1 };
}

export function parseModelfile(text: string): Modelfile {
  const out: Modelfile = { from: null, system: null, parameters: {}, template: null, messages: [] };
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    const m = /^\s*([A-Za-z]+)(?:\s+(.*))?$/.exec(line);
    if (!line.trim() || line.trim().startsWith('#') || !m) {
      i++;
      continue;
    }
    const keyword = m[1].toUpperCase();
    const rest = m[2] ?? '';
    if (keyword === 'PARAMETER') {
      const p = /^(\S+)\s+(.+)$/.exec(rest.trim());
      if (!p) throw new ModelfileError(`line ${i + 1}: PARAMETER needs a name and a value`);
      const name = p[1].toLowerCase();
      const raw = p[2].trim().replace(/^"(.*)"$/, '$1');
      if (name === 'stop') out.parameters.stop = [...((out.parameters.stop as string[] | undefined) ?? []), raw];
      else if (NUMERIC.has(name)) {
        const n = Number(raw);
        if (!Number.isFinite(n)) throw new ModelfileError(`line ${i + 1}: PARAMETER ${name} must be a number`);
        out.parameters[name] = n;
      } else out.parameters[name] = raw;
      i++;
      continue;
    }
    const { value, next } = readValue(rest, lines, i);
    if (keyword === 'FROM') out.from = value.trim();
    else if (keyword === 'SYSTEM') out.system = value.trim();
    else if (keyword === 'TEMPLATE') out.template = value;
    else if (keyword === 'MESSAGE') {
      const mm = /^(\S+)\s+([\s\S]*)$/.exec(value);
      if (mm) out.messages.push({ role: mm[1], content: mm[2] });
    }
    // Other instructions (ADAPTER, LICENSE) do not concern the chat.
    i = next;
  }
  return out;
}
