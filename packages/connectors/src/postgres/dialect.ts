import type { SourceSemantics } from '../contract/catalog.js';
import type { JType, TypeKind, Value } from '../contract/types.js';
import { BASE_FUNCTIONS, Dialect, type FnContext } from '../sql/dialect.js';

/**
 * Key kinds bound as one array parameter (see Capabilities.arrayKeySets): their values' text is
 * PostgreSQL's input form for the element type, so the array literal reads back exactly.
 */
export const ARRAY_KEY_KINDS: readonly TypeKind[] = ['int16', 'int32', 'int64', 'decimal', 'string', 'date'];

/**
 * `{1,2,"a \"b\""}`: numbers as they are, text double-quoted with `\` and `"` escaped, so
 * commas, braces, blanks and the word NULL inside a string stay part of it.
 */
export function arrayLiteral(values: readonly (string | number | bigint)[]): string {
  return `{${values.map((v) => (typeof v === 'string' ? `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"` : String(v))).join(',')}}`;
}

function isArrayElement(v: Value): v is string | number | bigint {
  return typeof v === 'string' || typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
}

/** Collations that already order by code point, so no COLLATE "C" is needed. */
export function isCodePointCollation(collation: string | undefined): boolean {
  if (collation === undefined) return false;
  return /^(c|posix|c\.utf-?8|ucs_basic)$/i.test(collation.trim());
}

/**
 * PostgreSQL is Junction's reference: the standard spellings are already right. Only string
 * ordering may need COLLATE "C" when the database's collation is a linguistic one, and bound
 * values get an explicit type so `$1 + $2` or `length($1)` never meets an ambiguous "unknown".
 */
export class PostgresDialect extends Dialect {
  readonly engine = 'postgresql' as const;
  private readonly codePointOrder: boolean;

  // PostgreSQL is the reference: trim's optional second argument is a set of characters here too
  override readonly functions = {
    ...BASE_FUNCTIONS,
    trim: 'BTRIM({*})',
    ltrim: 'LTRIM({*})',
    rtrim: 'RTRIM({*})',
    // EXTRACT answers numeric (12.500000 seconds), date_part() double precision (12.5): the
    // binder types each accordingly, so render the spelling whose result type was bound
    date_part: (c: FnContext) => {
      const field = c.args[0];
      if (c.type.kind !== 'decimal' || field?.kind !== 'literal' || typeof field.value !== 'string' || !/^[a-z]+$/i.test(field.value))
        return `DATE_PART(${c.sql[0]}, ${c.sql[1]})`;
      return `EXTRACT(${field.value.toUpperCase()} FROM ${c.sql[1]})`;
    },
  };

  constructor(semantics?: SourceSemantics) {
    super();
    this.codePointOrder = isCodePointCollation(semantics?.defaultCollation);
  }

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return `"${name.replace(/"/g, '""')}"`;
  }

  override readonly numberedPlaceholders = true;

  placeholder(n: number): string {
    return `$${n}`;
  }

  castType(type: JType): string | undefined {
    switch (type.kind) {
      case 'bool':
        return 'boolean';
      case 'int16':
        return 'smallint';
      case 'int32':
        return 'integer';
      case 'int64':
        return 'bigint';
      case 'decimal':
        return type.precision !== undefined ? `numeric(${type.precision},${type.scale ?? 0})` : 'numeric';
      case 'float32':
        return 'real';
      case 'float64':
        return 'double precision';
      case 'string':
        if (type.fixed) return type.length !== undefined ? `character(${type.length})` : 'bpchar';
        return type.length !== undefined ? `character varying(${type.length})` : 'text';
      case 'date':
        return 'date';
      case 'time':
        return type.precision !== undefined ? `time(${type.precision})` : 'time';
      case 'timestamp':
        return type.precision !== undefined ? `timestamp(${type.precision})` : 'timestamp';
      case 'timestamptz':
        return type.precision !== undefined ? `timestamp(${type.precision}) with time zone` : 'timestamp with time zone';
      case 'interval':
        return 'interval';
      case 'binary':
        return 'bytea';
      case 'json':
        return 'jsonb';
      case 'uuid':
        return 'uuid';
      default:
        return undefined;
    }
  }

  /** The value's own type without a typmod: numeric(15,2) on a literal would round it. */
  private paramType(type: JType): string | undefined {
    switch (type.kind) {
      case 'decimal':
        return 'numeric';
      case 'string':
        return type.fixed ? 'bpchar' : 'text';
      case 'time':
      case 'timestamp':
      case 'timestamptz':
        return this.castType({ kind: type.kind });
      case 'json':
        return 'json';
      case 'unknown':
        return 'text';
      default:
        return this.castType(type);
    }
  }

  override literal(value: Value, type: JType, bind: (v: Value) => string): string {
    const name = this.paramType(type);
    return name === undefined ? bind(value) : `${bind(value)}::${name}`;
  }

  override nullLiteral(type: JType): string {
    const name = this.paramType(type);
    return name === undefined ? 'NULL' : `NULL::${name}`;
  }

  /** `x = ANY($1::integer[])`: one parameter, the set as an array literal, cast to the key's own type. */
  override keySetArray(x: string, values: readonly Value[], type: JType, bind: (v: Value) => string): string | undefined {
    const name = this.paramType(type);
    if (!ARRAY_KEY_KINDS.includes(type.kind) || name === undefined || !values.every(isArrayElement)) return undefined;
    return `(${x} = ANY(${bind(arrayLiteral(values))}::${name}[]))`;
  }

  override orderingOperand(sql: string, _type: JType): string {
    return this.codePointOrder ? sql : `${sql} COLLATE "C"`;
  }
}
