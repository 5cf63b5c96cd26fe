/**
 * Junction's value model. Every connector decodes driver values into exactly these
 * representations and query-core computes on them, so an answer never passes
 * through a lossy JS number on the way.
 *
 * | kind         | JS value   | notes                                                        |
 * |--------------|------------|--------------------------------------------------------------|
 * | bool         | boolean    | MySQL tinyint(1) maps here                                   |
 * | int16, int32 | number     |                                                              |
 * | int64        | bigint     | exact past 2^53                                              |
 * | decimal      | string     | plain decimal text, e.g. "-12.50" (scale kept, no exponent)  |
 * | float32/64   | number     |                                                              |
 * | string       | string     |                                                              |
 * | date         | string     | "YYYY-MM-DD"                                                 |
 * | time         | string     | "HH:MM:SS[.ffffff]" (fraction without trailing zeros)       |
 * | timestamp    | string     | "YYYY-MM-DDTHH:MM:SS[.ffffff]" (no zone; canonical, so text order = time order) |
 * | timestamptz  | string     | "YYYY-MM-DDTHH:MM:SS[.ffffff]Z", always UTC                  |
 * | interval     | string     | ISO 8601 duration, e.g. "P1Y2M3DT4H"                         |
 * | binary       | Uint8Array |                                                              |
 * | json         | string     | JSON text                                                    |
 * | uuid         | string     | lower-case canonical form                                    |
 * | null         | null       | the type of a bare NULL literal                              |
 * | unknown      | string     | an unmapped source type, read as text (with a warning)       |
 */
export type TypeKind =
  | 'bool'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'decimal'
  | 'float32'
  | 'float64'
  | 'string'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'interval'
  | 'binary'
  | 'json'
  | 'uuid'
  | 'null'
  | 'unknown';

export interface JType {
  readonly kind: TypeKind;
  /** decimal: total digits; time/timestamp: fractional-second digits */
  readonly precision?: number;
  /** decimal: digits after the point */
  readonly scale?: number;
  /** string/binary: declared maximum length (char(n)/varchar(n)); absent = unbounded */
  readonly length?: number;
  /** string: true for blank-padded char(n) */
  readonly fixed?: boolean;
}

export type Value = null | boolean | number | bigint | string | Uint8Array;
export type Row = Value[];

/** Rows travel in batches; a stream's column metadata is known before its first batch. */
export interface Batch {
  readonly rows: Row[];
}

export interface ColumnMeta {
  readonly name: string;
  readonly type: JType;
  readonly nullable: boolean;
}

export const t = {
  bool: { kind: 'bool' } as JType,
  int16: { kind: 'int16' } as JType,
  int32: { kind: 'int32' } as JType,
  int64: { kind: 'int64' } as JType,
  float32: { kind: 'float32' } as JType,
  float64: { kind: 'float64' } as JType,
  string: { kind: 'string' } as JType,
  date: { kind: 'date' } as JType,
  time: { kind: 'time' } as JType,
  timestamp: { kind: 'timestamp' } as JType,
  timestamptz: { kind: 'timestamptz' } as JType,
  interval: { kind: 'interval' } as JType,
  binary: { kind: 'binary' } as JType,
  json: { kind: 'json' } as JType,
  uuid: { kind: 'uuid' } as JType,
  null: { kind: 'null' } as JType,
  unknown: { kind: 'unknown' } as JType,
  decimal: (precision?: number, scale?: number): JType => ({ kind: 'decimal', precision, scale }),
  varchar: (length?: number): JType => ({ kind: 'string', length }),
  char: (length: number): JType => ({ kind: 'string', length, fixed: true }),
} as const;

/** Text for a type, as EXPLAIN and the API print it: decimal(15,2), varchar(25), int64. */
export function formatType(type: JType): string {
  switch (type.kind) {
    case 'decimal':
      return type.precision !== undefined ? `decimal(${type.precision},${type.scale ?? 0})` : 'decimal';
    case 'string':
      if (type.length === undefined) return 'text';
      return `${type.fixed ? 'char' : 'varchar'}(${type.length})`;
    default:
      return type.kind;
  }
}
