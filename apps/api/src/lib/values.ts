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

export function jsonRow(row: readonly Value[]): unknown[] {
  const out = new Array<unknown>(row.length);
  for (let i = 0; i < row.length; i++) out[i] = jsonValue(row[i]);
  return out;
}

export function jsonColumns(columns: readonly ColumnMeta[]): { name: string; type: string; nullable: boolean }[] {
  return columns.map((c) => ({ name: c.name, type: formatType(c.type), nullable: c.nullable }));
}
