import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t, type JType } from '../contract/types.js';

/**
 * tedious decodes DECIMAL through a JS number and date/time types through JS Date. So that
 * rendered queries come back exact, select items of those types are converted to text on
 * the server (through their own exact type first: a legacy DATETIME or MONEY cast straight
 * to text would use a lossy display style); the connector decodes the text by the
 * original type. Only the select list changes: filters, keys and ordering keep the typed
 * expressions. SELECT DISTINCT with ORDER BY is left alone because the generator matches its
 * order keys to select items by expression.
 */
export function needsTextTransport(type: JType): boolean {
  switch (type.kind) {
    case 'decimal':
      return type.precision !== undefined;
    case 'date':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      return true;
    default:
      return false;
  }
}

function asText(expr: RemoteExpr): RemoteExpr {
  const type = expr.type;
  const typed: JType =
    type.kind === 'time' || type.kind === 'timestamp' || type.kind === 'timestamptz'
      ? { kind: type.kind, precision: 7 }
      : type;
  return { kind: 'cast', expr: { kind: 'cast', expr, type: typed }, type: t.varchar(80) };
}

export function withTextTransport(q: RemoteQuery): RemoteQuery {
  if (q.distinct && q.orderBy && q.orderBy.length > 0) return q;
  if (!q.select.some((s) => needsTextTransport(s.expr.type))) return q;
  return {
    ...q,
    select: q.select.map((s) => (needsTextTransport(s.expr.type) ? { alias: s.alias, expr: asText(s.expr) } : s)),
  };
}
