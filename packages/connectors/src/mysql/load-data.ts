import type { JType, Row, Value } from '../contract/types.js';
import { escapeTabText, toHex } from '../runtime/values.js';

/** One field of LOAD DATA's default text format (tab-separated, backslash escapes, \N for NULL). */
export function fieldEncoder(type: JType): (v: Value) => string {
  const timestamp = type.kind === 'timestamp' || type.kind === 'timestamptz';
  return (v) => {
    if (v === null) return '\\N';
    switch (typeof v) {
      case 'string':
        // the session time zone is UTC, so a UTC instant is written as its wall-clock text
        return timestamp ? v.replace('T', ' ').replace(/Z$/, '') : escapeTabText(v, true);
      case 'number':
        return String(v);
      case 'bigint':
        return v.toString();
      case 'boolean':
        return v ? '1' : '0';
      default:
        // binary goes as hex and is unhexed by the statement's SET clause
        return toHex(v);
    }
  };
}

export function loadDataStatement(
  target: string,
  columns: readonly { name: string; type: JType }[],
  quote: (n: string) => string,
): string {
  const list = columns.map((c, i) => (c.type.kind === 'binary' ? `@b${i}` : quote(c.name))).join(', ');
  const sets = columns.flatMap((c, i) => (c.type.kind === 'binary' ? [`${quote(c.name)} = UNHEX(@b${i})`] : []));
  return (
    `LOAD DATA LOCAL INFILE 'junction-bulk' INTO TABLE ${target} CHARACTER SET utf8mb4 ` +
    `FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${list})` +
    (sets.length ? ` SET ${sets.join(', ')}` : '')
  );
}

/** Joined arrays, not `+=`: several times faster on big batches (see postgres/copy.ts). */
export function encodeRows(rows: readonly Row[], encoders: readonly ((v: Value) => string)[]): string {
  const lines = new Array<string>(rows.length + 1);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const fields = new Array<string>(row.length);
    for (let i = 0; i < row.length; i++) fields[i] = encoders[i](row[i]);
    lines[r] = fields.join('\t');
  }
  lines[rows.length] = '';
  return rows.length === 0 ? '' : lines.join('\n');
}
