import { joinId, tableOf, type ColumnRef, type ViewGraph } from './model.js';

/** String semantics of a source, as its probe found them (GET /sources/:id). */
export interface StringSemantics {
  readonly source: string;
  readonly defaultCollation?: string;
  readonly caseSensitive?: boolean;
  readonly accentSensitive?: boolean;
  readonly padSpace?: boolean;
}

export interface JoinSide {
  /** `alias.column` as shown */
  readonly label: string;
  readonly type: string;
  /** undefined for a view (Junction's own semantics) */
  readonly semantics?: StringSemantics;
}

export type Family = 'number' | 'string' | 'temporal' | 'bool' | 'other';

/** The type family of a catalog type as the API prints it (int64, decimal(15,2), varchar(25)…). */
export function typeFamily(type: string): Family {
  const t = type.toLowerCase();
  if (/^(int16|int32|int64|float32|float64|decimal)/.test(t)) return 'number';
  if (/^(text|varchar|char|string)/.test(t)) return 'string';
  if (/^(date|timestamp|timestamptz|time)/.test(t)) return 'temporal';
  if (t === 'bool') return 'bool';
  return 'other';
}

/**
 * What the user should know before joining two columns, and what Junction does about it.
 * Junction compares with PostgreSQL's meaning (C collation: exact code points, case, accents
 * and trailing blanks significant for varchar/text) wherever the join runs; a source whose
 * collation differs never gets such a comparison pushed down to it.
 */
export function joinWarnings(a: JoinSide, b: JoinSide): string[] {
  const out: string[] = [];
  const fa = typeFamily(a.type);
  const fb = typeFamily(b.type);
  if (fa !== fb) {
    out.push(
      `${a.label} is ${a.type} and ${b.label} is ${b.type}: Junction does not compare ${fa} with ${fb} values, ` +
        'so the view is refused until a computed column CASTs one side.',
    );
    return out;
  }
  if (fa === 'number' && a.type !== b.type)
    out.push(`${a.type} and ${b.type} differ: Junction widens both sides to the wider type and compares exactly.`);
  if (fa === 'temporal' && a.type !== b.type)
    out.push(`${a.type} and ${b.type} differ: Junction compares them as the later type (a date as midnight).`);
  if (fa !== 'string') return out;
  const fixed = (t: string) => /^char\(/i.test(t);
  if (fixed(a.type) !== fixed(b.type))
    out.push(
      `${fixed(a.type) ? a.label : b.label} is blank-padded ${fixed(a.type) ? a.type : b.type}: Junction compares it ` +
        'as text without its trailing blanks, as PostgreSQL does.',
    );
  for (const side of [a, b]) {
    const s = side.semantics;
    if (!s) continue;
    const loose: string[] = [];
    if (s.caseSensitive === false) loose.push('case-insensitively');
    if (s.accentSensitive === false) loose.push('accent-insensitively');
    if (s.padSpace === true) loose.push('ignoring trailing blanks (PAD SPACE)');
    if (loose.length === 0) continue;
    out.push(
      `${s.source} compares text ${loose.join(', ')}${s.defaultCollation ? ` (collation ${s.defaultCollation})` : ''}; ` +
        `Junction joins ${side.label} exactly (case, accents and trailing blanks count) and does not push this ` +
        `comparison into ${s.source}, so 'ABC' and 'abc' do not match here even where ${s.source} would match them.`,
    );
  }
  return out;
}

/** Per join of the graph (by joinId), what differs between its two columns. */
export function graphJoinWarnings(
  g: ViewGraph,
  semantics: ReadonlyMap<string, StringSemantics | undefined>,
): Map<string, string[]> {
  const side = (ref: ColumnRef): JoinSide => {
    const t = tableOf(g, ref.table);
    // a view compares with Junction's own semantics, whatever its sources do
    const sem = t?.kind === 'table' ? semantics.get(t.path[0]!) : undefined;
    return {
      label: `${ref.table}.${ref.column}`,
      type: t?.columns.find((c) => c.name === ref.column)?.type ?? 'unknown',
      ...(sem ? { semantics: sem } : {}),
    };
  };
  return new Map(g.joins.map((j) => [joinId(j), joinWarnings(side(j.left), side(j.right))]));
}
