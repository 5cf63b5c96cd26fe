import { formatType, type ColumnMeta, type Value } from '@junction/connectors';

/**
 * Junction values as exact JSON: int64 and decimals become strings (a JS number would round
 * them), binary becomes base64, non-finite floats become their text. Dates, times and
 * timestamps are already ISO 8601 text in the value model.
 */
export function jsonValue(v: Value): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'string':
    case 'boolean':
      return v;
    default:
      return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  }
}

/**
 * A batch of rows as JSON array elements, comma-separated (no enclosing brackets). A batch whose
 * values JSON.stringify already writes exactly (no int64, binary or non-finite float: the usual
 * case) is stringified in one call, about twice as fast as a call and a converted copy per row.
 */
export function jsonRows(batch: readonly (readonly Value[])[]): string {
  if (!isPlainJson(batch)) return batch.map((r) => JSON.stringify(jsonRow(r))).join(',');
  const text = JSON.stringify(batch);
  return text.slice(1, -1);
}

/** One JSON array per row, each followed by a newline (NDJSON), exactly as jsonRow writes them. */
export function jsonLines(batch: readonly (readonly Value[])[]): string {
  const plain = isPlainJson(batch);
  let out = '';
  for (const row of batch) out += JSON.stringify(plain ? row : jsonRow(row)) + '\n';
  return out;
}

function isPlainJson(batch: readonly (readonly Value[])[]): boolean {
  for (const row of batch)
    for (const v of row) {
      const type = typeof v;
      if (type === 'string' || v === null || type === 'boolean') continue;
      if (type === 'number' && Number.isFinite(v)) continue;
      return false;
    }
  return true;
}

export function jsonRow(row: readonly Value[]): unknown[] {
  const out = new Array<unknown>(row.length);
  for (let i = 0; i < row.length; i++) out[i] = jsonValue(row[i]);
  return out;
}

export function jsonColumns(columns: readonly ColumnMeta[]): { name: string; type: string; nullable: boolean }[] {
  return columns.map((c) => ({ name: c.name, type: formatType(c.type), nullable: c.nullable }));
}
