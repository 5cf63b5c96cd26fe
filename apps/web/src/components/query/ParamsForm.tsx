import { useEffect, useRef, type KeyboardEvent } from 'react';
import { placeholderLabel } from '../../lib/placeholders.js';
import type { ParamValue } from '../../lib/workspace-tabs.js';

/** A request to fill in one placeholder; `seq` changes with every Run that asked, so each one focuses again. */
export interface ParamAsk {
  readonly index: number;
  readonly seq: number;
}

/**
 * One field per placeholder of the statement about to run. Values go as text, which the engine
 * casts as PostgreSQL casts an untyped literal; NULL is a separate choice, not an empty field.
 */
export function ParamsForm({
  sql,
  count,
  values,
  ask,
  onChange,
  onRun,
}: {
  sql: string;
  count: number;
  values: readonly ParamValue[];
  /** Run found this placeholder empty: focus its field and say what is wanted */
  ask?: ParamAsk;
  onChange(values: ParamValue[]): void;
  onRun(): void;
}) {
  const inputs = useRef<(HTMLInputElement | null)[]>([]);
  useEffect(() => {
    if (ask) inputs.current[ask.index]?.focus();
  }, [ask]);
  if (count === 0) return null;
  const set = (i: number, v: ParamValue) => {
    const next = Array.from({ length: Math.max(count, values.length) }, (_, k) => (k < values.length ? values[k] : { text: '' }));
    next[i] = v;
    onChange(next);
  };
  // the values are the last thing typed before running: Enter runs, as Ctrl+Enter does in the editor
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    onRun();
  };
  const askedValue = ask && ask.index < count ? (ask.index < values.length ? values[ask.index] : { text: '' }) : null;
  // the prompt goes away as soon as the field holds something (or NULL is ticked)
  const asked = ask && askedValue && askedValue.text === '' ? ask.index : undefined;
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
                ref={(el) => {
                  inputs.current[i] = el;
                }}
                aria-label={`Value of ${label}`}
                aria-invalid={asked === i || undefined}
                aria-describedby={asked === i ? 'j-param-ask' : undefined}
                value={v === null ? '' : v.text}
                disabled={v === null}
                placeholder={v === null ? 'NULL' : 'value'}
                onChange={(e) => set(i, { text: e.target.value })}
                onKeyDown={onKeyDown}
              />
            </label>
            <label className="j-small">
              <input type="checkbox" checked={v === null} onChange={(e) => set(i, e.target.checked ? null : { text: '' })} /> NULL
            </label>
          </span>
        );
      })}
      {asked !== undefined && (
        <span id="j-param-ask" className="j-error j-small" role="alert" data-testid="params-ask">
          Enter a value for {placeholderLabel(sql, asked)} (or tick NULL), then press Enter to run.
        </span>
      )}
    </fieldset>
  );
}
