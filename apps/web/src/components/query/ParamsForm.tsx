import { placeholderLabel } from '../../lib/placeholders.js';
import type { ParamValue } from '../../lib/workspace-tabs.js';

/**
 * One field per placeholder of the statement about to run. Values go as text, which the engine
 * casts as PostgreSQL casts an untyped literal; NULL is a separate choice, not an empty field.
 */
export function ParamsForm({
  sql,
  count,
  values,
  onChange,
}: {
  sql: string;
  count: number;
  values: readonly ParamValue[];
  onChange(values: ParamValue[]): void;
}) {
  if (count === 0) return null;
  const set = (i: number, v: ParamValue) => {
    const next = Array.from({ length: Math.max(count, values.length) }, (_, k) => (k < values.length ? values[k] : { text: '' }));
    next[i] = v;
    onChange(next);
  };
  return (
    <fieldset className="j-params-form" aria-label="Parameters" data-testid="params-form">
      <legend className="j-muted j-small">Parameters</legend>
      {Array.from({ length: count }, (_, i) => {
        const label = placeholderLabel(sql, i);
        const v = i < values.length ? values[i] : { text: '' };
        return (
          <span key={i} className="j-param">
            <label>
              <span className="j-mono">{label}</span>{' '}
              <input
                aria-label={`Value of ${label}`}
                value={v === null ? '' : v.text}
                disabled={v === null}
                placeholder={v === null ? 'NULL' : 'value'}
                onChange={(e) => set(i, { text: e.target.value })}
              />
            </label>
            <label className="j-small">
              <input type="checkbox" checked={v === null} onChange={(e) => set(i, e.target.checked ? null : { text: '' })} /> NULL
            </label>
          </span>
        );
      })}
    </fieldset>
  );
}
