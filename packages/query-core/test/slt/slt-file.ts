import type { ColumnMeta, Row, Value } from '@junction/connectors';

/**
 * A small sqllogictest dialect (DataFusion/DuckDB style):
 *
 *   setup <source>            native SQL run on that source before the queries (one statement)
 *   query <types> [rowsort|nosort] [params=<json array>]
 *   <sql>
 *   ----
 *   <one line per row, values separated by one space>
 *
 *   statement error <code>
 *   <sql>
 *
 *   explain [params=<json array>]
 *   <sql>
 *   ----
 *   <Junction's EXPLAIN text: operators, where each runs, the SQL sent, what was not pushed>
 *
 * Types: I integer, R decimal/float, T text/date/time, B boolean. NULL prints as NULL, an
 * empty string as (empty), booleans as t/f, and trailing blanks of a string as ␣ so they are
 * visible (and survive editors that strip trailing whitespace).
 */
export type SltRecord =
  | { readonly kind: 'setup'; readonly line: number; readonly source: string; readonly sql: string }
  | {
      readonly kind: 'query';
      readonly line: number;
      readonly types: string;
      readonly sort: 'rowsort' | 'nosort';
      readonly params: readonly Value[];
      readonly sql: string;
      readonly expected: readonly string[];
    }
  | { readonly kind: 'error'; readonly line: number; readonly code: string; readonly sql: string }
  | {
      readonly kind: 'explain';
      readonly line: number;
      readonly params: readonly Value[];
      readonly sql: string;
      readonly expected: readonly string[];
    };

export function parseSlt(text: string): SltRecord[] {
  const lines = text.split('\n');
  const out: SltRecord[] = [];
  let i = 0;
  const blockUntil = (stop: (l: string) => boolean): string[] => {
    const acc: string[] = [];
    while (i < lines.length && !stop(lines[i])) acc.push(lines[i++]);
    return acc;
  };
  while (i < lines.length) {
    const line = lines[i].trim();
    const at = i + 1;
    i++;
    if (line === '' || line.startsWith('#')) continue;
    const words = line.split(/\s+/);
    if (words[0] === 'setup') {
      const sql = blockUntil((l) => l.trim() === '').join('\n');
      out.push({ kind: 'setup', line: at, source: words[1], sql });
    } else if (words[0] === 'statement' && words[1] === 'error') {
      const sql = blockUntil((l) => l.trim() === '').join('\n');
      out.push({ kind: 'error', line: at, code: words[2], sql });
    } else if (words[0] === 'explain') {
      const p = words.find((w) => w.startsWith('params='));
      const params = p ? parseParams(p.slice('params='.length)) : [];
      const sql = blockUntil((l) => l.trim() === '----').join('\n');
      i++; // ----
      const expected = blockUntil((l) => l.trim() === '');
      out.push({ kind: 'explain', line: at, params, sql, expected });
    } else if (words[0] === 'query') {
      const types = words[1];
      const sort = words.includes('nosort') ? 'nosort' : 'rowsort';
      const p = words.find((w) => w.startsWith('params='));
      const params = p ? parseParams(p.slice('params='.length)) : [];
      const sql = blockUntil((l) => l.trim() === '----').join('\n');
      i++; // ----
      const expected = blockUntil((l) => l.trim() === '');
      out.push({ kind: 'query', line: at, types, sort, params, sql, expected });
    } else {
      throw new Error(`line ${at}: unknown record "${line}"`);
    }
  }
  return out;
}

/** JSON array; integers written as "123n" become bigints (int64 parameters). */
function parseParams(json: string): Value[] {
  return (JSON.parse(json) as unknown[]).map((v) =>
    typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : (v as Value),
  );
}

export function formatValue(v: Value): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  if (v === '') return '(empty)';
  return v.replace(/ +$/, (m) => '␣'.repeat(m.length));
}

export function formatRows(rows: readonly Row[], sort: 'rowsort' | 'nosort'): string[] {
  const lines = rows.map((r) => r.map(formatValue).join(' '));
  return sort === 'rowsort' ? lines.sort() : lines;
}

export function typeLetter(c: ColumnMeta): string {
  switch (c.type.kind) {
    case 'int16':
    case 'int32':
    case 'int64':
      return 'I';
    case 'decimal':
    case 'float32':
    case 'float64':
      return 'R';
    case 'bool':
      return 'B';
    default:
      return 'T';
  }
}
