// The application writes its SQL once, in the dialect both databases share. For PostgreSQL a statement's
// text is translated once, when it is prepared: `?` and `@name` placeholders become `$1…$n`, and the few
// SQLite spellings with a PostgreSQL twin are renamed. Nothing else is rewritten: a construct only one
// database knows belongs behind `db.dialect` in the caller, where a reader sees both forms.

export interface TranslatedSql {
  text: string;
  /** For `@name` placeholders: the parameter name of each `$k`, in order. Empty for positional ones. */
  names: string[];
  /** Number of positional (`?`, or the highest `?NNN`) parameters. */
  positional: number;
}

/** SQLite function names whose PostgreSQL twin takes the same arguments. */
const RENAMED_FUNCTIONS: Record<string, string> = { group_concat: 'string_agg' };

/**
 * Rewrites one statement for PostgreSQL, leaving string literals, quoted identifiers and comments as
 * they are.
 * @example toPostgres('SELECT * FROM t WHERE a = ? AND b = @b') // text 'SELECT * FROM t WHERE a = $1 AND b = $2'
 */
export function toPostgres(sql: string): TranslatedSql {
  let out = '';
  const names: string[] = [];
  let positional = 0;
  let numbered = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const end = closing(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '?') {
      // `?NNN` is SQLite's numbered placeholder: the same $NNN in PostgreSQL.
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j])) j++;
      if (j > i + 1) {
        const n = Number(sql.slice(i + 1, j));
        numbered = Math.max(numbered, n);
        out += `$${n}`;
      } else {
        positional++;
        out += `$${positional}`;
      }
      i = j;
    } else if ((ch === '@' || ch === ':' || ch === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? '') && !(ch === ':' && sql[i - 1] === ':')) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j])) j++;
      const name = sql.slice(i + 1, j);
      let k = names.indexOf(name);
      if (k === -1) {
        names.push(name);
        k = names.length - 1;
      }
      out += `$${k + 1}`;
      i = j;
    } else if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? '')) {
      let j = i;
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j])) j++;
      const word = sql.slice(i, j);
      const renamed = RENAMED_FUNCTIONS[word.toLowerCase()];
      out += renamed && /^\s*\(/.test(sql.slice(j)) ? renamed : word;
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  if ((positional > 0 || numbered > 0) && names.length > 0) throw new Error(`a statement mixes ? and named placeholders: ${sql}`);
  if (positional > 0 && numbered > 0) throw new Error(`a statement mixes ? and ?NNN placeholders: ${sql}`);
  return { text: out, names, positional: positional || numbered };
}

/** Index just past the quote that closes the one at `start` (a doubled quote is an escaped one). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}
