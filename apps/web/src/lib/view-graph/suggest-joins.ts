import { joinId, type GraphJoin, type GraphTable, type ViewGraph } from './model.js';
import { typeFamily } from './join-warnings.js';

export interface JoinSuggestion {
  readonly join: GraphJoin;
  /** why it is suggested: "foreign key …", or which names and types matched */
  readonly reason: string;
}

/** TPC-H style prefixes (o_custkey, c_custkey): the part after a short table prefix. */
const stem = (name: string) => name.toLowerCase().replace(/^[a-z]{1,3}_/, '');
/** Names that match across tables without meaning the same thing. */
const KEYLIKE = /(key|id|code|no|num|number)$/;

/**
 * Joins worth offering between tables that are not joined yet: declared foreign keys first,
 * then columns with the same name (or the same name after a short prefix, as o_custkey and
 * c_custkey) and the same type family, when the name looks like a key.
 */
export function suggestJoins(g: ViewGraph): JoinSuggestion[] {
  const out: JoinSuggestion[] = [];
  const seen = new Set<string>();
  const add = (s: JoinSuggestion) => {
    const id = joinId(s.join);
    const rev = joinId({ ...s.join, left: s.join.right, right: s.join.left });
    if (seen.has(id) || seen.has(rev)) return;
    seen.add(id);
    out.push(s);
  };
  for (let i = 0; i < g.tables.length; i++) {
    for (let k = i + 1; k < g.tables.length; k++) {
      const a = g.tables[i]!;
      const b = g.tables[k]!;
      if (joined(g, a.alias, b.alias)) continue;
      for (const s of [...foreignKeys(a, b), ...foreignKeys(b, a)]) add(s);
      for (const s of byName(a, b)) add(s);
    }
  }
  return out;
}

function joined(g: ViewGraph, a: string, b: string): boolean {
  return g.joins.some(
    (j) => (j.left.table === a && j.right.table === b) || (j.left.table === b && j.right.table === a),
  );
}

function foreignKeys(from: GraphTable, to: GraphTable): JoinSuggestion[] {
  const toName = to.path[to.path.length - 1]!.toLowerCase();
  return (from.foreignKeys ?? [])
    .filter((fk) => fk.refTable.toLowerCase() === toName && fk.columns.length === 1)
    .map((fk) => ({
      join: {
        type: 'inner',
        left: { table: from.alias, column: fk.columns[0]! },
        right: { table: to.alias, column: fk.refColumns[0]! },
      },
      reason: `foreign key ${from.path.join('.')}(${fk.columns[0]}) → ${fk.refTable}(${fk.refColumns[0]})`,
    }));
}

function byName(a: GraphTable, b: GraphTable): JoinSuggestion[] {
  const out: JoinSuggestion[] = [];
  for (const ca of a.columns) {
    for (const cb of b.columns) {
      const same = ca.name.toLowerCase() === cb.name.toLowerCase();
      const s = stem(ca.name);
      if (!same && !(s === stem(cb.name) && s.length >= 3)) continue;
      if (!KEYLIKE.test(s) && !(a.primaryKey ?? []).includes(ca.name) && !(b.primaryKey ?? []).includes(cb.name))
        continue;
      if (typeFamily(ca.type) !== typeFamily(cb.type)) continue;
      out.push({
        join: { type: 'inner', left: { table: a.alias, column: ca.name }, right: { table: b.alias, column: cb.name } },
        reason: `${same ? `same name (${ca.name})` : `names match after their prefixes (${s})`}; ${typesMatch(ca.type, cb.type)}`,
      });
    }
  }
  return out;
}

/** Only the family has to agree: int32 = int64 is offered, and must not be called the same type. */
function typesMatch(a: string, b: string): string {
  if (a.toLowerCase() === b.toLowerCase()) return `both ${a}`;
  const family = typeFamily(a);
  const plural = family === 'number' ? 'numbers' : family === 'string' ? 'text' : family === 'temporal' ? 'dates or times' : family;
  return `both ${plural} (${a}, ${b})`;
}
