import { JunctionError } from '../contract/errors.js';
import type { JType, Value } from '../contract/types.js';
import { toHex } from '../runtime/values.js';
import { decimalShape } from '../sql/dialect.js';
import { inlineParams as inlineText } from '../sql/inline-params.js';

/**
 * Values reach Trino spliced into the SQL text, always through this file. Trino's own
 * parameters (PREPARE + EXECUTE … USING) take literals in the USING list too, so binding
 * would not spare the escaping; it would only add a round trip and a session header.
 * A string literal in Trino knows one escape, the doubled quote: a backslash is an ordinary
 * character, so doubling quotes is the whole of it.
 */
export function quoteString(s: string): string {
  // NUL cannot travel inside Trino's SQL text (its parser rejects it)
  if (s.includes('\u0000')) {
    throw new JunctionError('value_not_representable', 'unsupported', 'Trino cannot take a string containing a NUL character in SQL text.');
  }
  return `'${s.replace(/'/g, "''")}'`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}(\.\d{1,12})?$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,12})?)$/;
const TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,12})?)Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function malformed(value: Value, what: string): JunctionError {
  return new JunctionError('bad_literal', 'user', `${JSON.stringify(String(value))} is not a valid ${what} value.`, {
    details: { type: what },
  });
}

function text(value: Value, pattern: RegExp, what: string): RegExpExecArray {
  const m = typeof value === 'string' ? pattern.exec(value) : null;
  if (!m) throw malformed(value, what);
  return m;
}

function double(v: number, name: 'DOUBLE' | 'REAL'): string {
  if (Number.isNaN(v)) return name === 'DOUBLE' ? 'nan()' : 'CAST(nan() AS REAL)';
  if (v === Infinity) return name === 'DOUBLE' ? 'infinity()' : 'CAST(infinity() AS REAL)';
  if (v === -Infinity) return name === 'DOUBLE' ? '-infinity()' : 'CAST(-infinity() AS REAL)';
  // a bare 1.5 would be a DECIMAL in Trino
  return `${name} '${Object.is(v, -0) ? '-0.0' : String(v)}'`;
}

function integer(value: Value, name: 'SMALLINT' | 'INTEGER' | 'BIGINT'): string {
  const s = typeof value === 'bigint' || typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d+$/.test(s)) throw malformed(value, name.toLowerCase());
  return `${name} '${s}'`;
}

/**
 * A value of Junction's value model as a Trino literal of exactly the type Junction means:
 * typed literals (DECIMAL '1.10' keeps its scale, BIGINT '…' its digits, TIMESTAMP '…' its
 * microseconds) so no literal takes a type of Trino's choosing.
 */
export function trinoLiteral(value: Value, type: JType): string {
  if (value === null) return nullLiteral(type);
  switch (type.kind) {
    case 'bool':
      if (typeof value !== 'boolean') throw malformed(value, 'boolean');
      return value ? 'TRUE' : 'FALSE';
    case 'int16':
      return integer(value, 'SMALLINT');
    case 'int32':
      return integer(value, 'INTEGER');
    case 'int64':
      return integer(value, 'BIGINT');
    case 'decimal': {
      const s = typeof value === 'bigint' || typeof value === 'number' ? String(value) : String(value).trim();
      decimalShape(s); // throws on anything but plain decimal text
      if (typeof value === 'number' && !Number.isFinite(value)) throw malformed(value, 'decimal');
      return `DECIMAL ${quoteString(s)}`;
    }
    case 'float32':
    case 'float64': {
      const v = typeof value === 'number' ? value : Number(value);
      if (typeof value !== 'number' && (typeof value !== 'string' || Number.isNaN(v))) throw malformed(value, type.kind);
      return double(v, type.kind === 'float64' ? 'DOUBLE' : 'REAL');
    }
    case 'string':
    case 'unknown':
      if (typeof value !== 'string') throw malformed(value, 'string');
      // char(n) compares without its pad blanks in Junction; see TrinoDialect.column
      return quoteString(type.fixed ? value.replace(/ +$/, '') : value);
    case 'date':
      text(value, DATE, 'date');
      return `DATE '${value as string}'`;
    case 'time':
      text(value, TIME, 'time');
      return `TIME '${value as string}'`;
    case 'timestamp': {
      const m = text(value, TIMESTAMP, 'timestamp');
      return `TIMESTAMP '${m[1]} ${m[2]}'`;
    }
    case 'timestamptz': {
      const m = text(value, TIMESTAMPTZ, 'timestamptz');
      return `TIMESTAMP '${m[1]} ${m[2]} UTC'`;
    }
    case 'uuid':
      text(value, UUID, 'uuid');
      return `UUID '${(value as string).toLowerCase()}'`;
    case 'json':
      if (typeof value !== 'string') throw malformed(value, 'json');
      return `JSON ${quoteString(value)}`;
    case 'binary':
      if (!(value instanceof Uint8Array)) throw malformed(value, 'binary');
      return `X'${toHex(value)}'`;
    default:
      throw new JunctionError('value_not_representable', 'unsupported', `Trino has no literal for a value of type ${type.kind}.`, {
        details: { type: type.kind },
      });
  }
}

/** NULL with the type it stands for, so `CASE … ELSE NULL` or `coalesce(NULL, x)` type as Junction typed them. */
export function nullLiteral(type: JType): string {
  const name = trinoTypeName(type);
  return name === undefined ? 'NULL' : `CAST(NULL AS ${name})`;
}

/** Trino's name for a Junction type, or undefined when Trino has no exact equivalent. */
export function trinoTypeName(type: JType): string | undefined {
  switch (type.kind) {
    case 'bool':
      return 'BOOLEAN';
    case 'int16':
      return 'SMALLINT';
    case 'int32':
      return 'INTEGER';
    case 'int64':
      return 'BIGINT';
    case 'decimal':
      // Trino's decimals stop at 38 digits; an unbounded numeric has no equivalent
      return type.precision !== undefined && type.precision <= 38 ? `DECIMAL(${type.precision},${type.scale ?? 0})` : undefined;
    case 'float32':
      return 'REAL';
    case 'float64':
      return 'DOUBLE';
    case 'string':
      if (type.fixed) return type.length !== undefined ? `CHAR(${type.length})` : undefined;
      return type.length !== undefined ? `VARCHAR(${type.length})` : 'VARCHAR';
    case 'date':
      return 'DATE';
    case 'time':
      return `TIME(${type.precision ?? 6})`;
    case 'timestamp':
      return `TIMESTAMP(${type.precision ?? 6})`;
    case 'timestamptz':
      return `TIMESTAMP(${type.precision ?? 6}) WITH TIME ZONE`;
    case 'binary':
      return 'VARBINARY';
    case 'json':
      return 'JSON';
    case 'uuid':
      return 'UUID';
    default:
      return undefined;
  }
}

/** A value without a declared type (execute()'s parameters), as the literal its JS type suggests. */
export function untypedLiteral(v: Value): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'string':
      return quoteString(v);
    case 'bigint':
      return `BIGINT '${v}'`;
    case 'number':
      return Number.isInteger(v) && Math.abs(v) <= 2147483647 ? `INTEGER '${v}'` : double(v, 'DOUBLE');
    case 'boolean':
      return v ? 'TRUE' : 'FALSE';
    default:
      return `X'${toHex(v)}'`;
  }
}

/** Replaces each `?` placeholder with its value's literal (Trino's only placeholder is `?`). */
export function inlineParams(sql: string, params: readonly Value[]): string {
  return inlineText(sql, params, untypedLiteral, { quotes: `'"` });
}
