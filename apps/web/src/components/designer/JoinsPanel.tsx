import { joinId, JOIN_TYPES, type GraphJoin, type JoinType } from '../../lib/view-graph/model.js';
import type { JoinSuggestion } from '../../lib/view-graph/suggest-joins.js';

const cond = (j: GraphJoin) => `${j.left.table}.${j.left.column} = ${j.right.table}.${j.right.column}`;

interface Props {
  joins: readonly GraphJoin[];
  suggestions: readonly JoinSuggestion[];
  warnings: ReadonlyMap<string, readonly string[]>;
  selected?: string;
  /** tables joined to no other: each of their rows pairs with every row of the rest */
  unjoined: readonly string[];
  onType(id: string, type: JoinType): void;
  onRemove(id: string): void;
  onAccept(s: JoinSuggestion): void;
}

/** Joins drawn (type, warnings) and joins suggested from keys and names. */
export function JoinsPanel({ joins, suggestions, warnings, selected, unjoined, onType, onRemove, onAccept }: Props) {
  return (
    <section className="j-dsection" aria-label="Joins">
      <h3>Joins</h3>
      {joins.length === 0 && suggestions.length === 0 && (
        <p className="j-muted j-small">Draw a join from a column's handle to a column of another table.</p>
      )}
      <ul className="j-dlist">
        {joins.map((j) => {
          const id = joinId(j);
          return (
            <li key={id} className={selected === id ? 'j-dselected' : undefined} data-testid={`join-${id}`}>
              <div className="j-row">
                <select
                  aria-label={`Join type of ${cond(j)}`}
                  value={j.type}
                  onChange={(e) => onType(id, e.target.value as JoinType)}
                >
                  {JOIN_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t.toUpperCase()}
                    </option>
                  ))}
                </select>
                <code className="j-small">{cond(j)}</code>
                <span className="j-spacer" />
                <button type="button" className="j-link j-danger" onClick={() => onRemove(id)} aria-label="Remove join">
                  ×
                </button>
              </div>
              {(warnings.get(id) ?? []).map((w, i) => (
                <p key={i} className="j-dwarn" role="note">
                  ⚠ {w}
                </p>
              ))}
            </li>
          );
        })}
      </ul>
      {unjoined.length > 0 && (
        <p className="j-dwarn" role="note">
          ⚠ {unjoined.join(', ')} {unjoined.length === 1 ? 'is' : 'are'} joined to no other table: a CROSS JOIN pairs
          every row with every row.
        </p>
      )}
      {suggestions.length > 0 && (
        <>
          <h4>Suggested</h4>
          <ul className="j-dlist">
            {suggestions.map((s) => {
              const id = joinId(s.join);
              return (
                <li key={id} className="j-row">
                  <code className="j-small">{cond(s.join)}</code>
                  <span className="j-muted j-small">{s.reason}</span>
                  <span className="j-spacer" />
                  <button type="button" onClick={() => onAccept(s)} data-testid={`accept-join-${id}`}>
                    Join
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
