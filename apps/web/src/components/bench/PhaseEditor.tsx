import { useState } from 'react';
import type { Mode, Phase } from '../../lib/bench-api.js';

const TYPE_NAME: Record<Phase['type'], string> = {
  single: 'Each query alone',
  concurrency: 'One query by concurrent users',
  mix: 'Weighted mix',
  streams: 'Query streams',
  coldwarm: 'Cold vs warm',
};

const MODE_NAME: Record<Mode, string> = {
  direct: 'Direct (native driver)',
  pushdown: 'Junction, one source',
  federated: 'Junction, federated',
  trino: 'Through Trino (federated SQL)',
};

/** A new phase of a type, with the presets' usual settings. */
export function newPhase(type: Phase['type'], queries: readonly string[]): Phase {
  switch (type) {
    case 'single':
      return { type, warmups: 1, repetitions: 5, modes: ['direct', 'federated'] };
    case 'concurrency':
      return { type, query: queries[0] ?? '', users: [1, 2, 4], stepSeconds: 10, modes: ['direct', 'federated'] };
    case 'mix':
      return { type, users: 4, durationSeconds: 30, intervalSeconds: 2 };
    case 'streams':
      return { type, users: 3 };
    case 'coldwarm':
      return { type, warmPasses: 2 };
  }
}

function parseList(text: string): number[] | undefined {
  const list = text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map(Number);
  return list.length && list.every((n) => Number.isInteger(n) && n > 0) ? list : undefined;
}

/**
 * "1, 2, 4" ↔ [1, 2, 4]; the text is kept while typed (a trailing comma is fine), the list
 * changes once it parses, and a change from outside (Short run) replaces the text.
 */
function ListInput({ value, onChange, label }: { value: number[]; onChange(v: number[]): void; label: string }) {
  const [text, setText] = useState(value.join(', '));
  const [typing, setTyping] = useState(false);
  // React's "adjust state while rendering": the list changed elsewhere while nobody typed here
  if (!typing && parseList(text)?.join(',') !== value.join(',')) setText(value.join(', '));
  return (
    <input
      aria-label={label}
      value={text}
      onFocus={() => setTyping(true)}
      onBlur={() => {
        setTyping(false);
        setText(value.join(', '));
      }}
      onChange={(e) => {
        setText(e.target.value);
        const list = parseList(e.target.value);
        if (list) onChange(list);
      }}
    />
  );
}

function NumberField({
  label,
  value,
  onChange,
  step = 1,
  min = 0,
}: {
  label: string;
  value: number | undefined;
  onChange(v: number | undefined): void;
  step?: number;
  min?: number;
}) {
  return (
    <label>
      <span>{label}</span>
      <input
        type="number"
        aria-label={label}
        min={min}
        step={step}
        value={value ?? ''}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
      />
    </label>
  );
}

/** Which queries a phase runs: a tick per query; none ticked means all. */
function QueryPicks({
  all,
  picked,
  onChange,
}: {
  all: readonly string[];
  picked: string[] | undefined;
  onChange(v: string[] | undefined): void;
}) {
  const on = new Set(picked ?? all);
  return (
    <fieldset className="j-picks">
      <legend>Queries</legend>
      {all.map((id) => (
        <label key={id} className="j-check">
          <input
            type="checkbox"
            checked={on.has(id)}
            onChange={(e) => {
              const next = all.filter((q) => (q === id ? e.target.checked : on.has(q)));
              onChange(next.length === all.length ? undefined : next);
            }}
          />
          <span>{id}</span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * `fallback`: what the runner runs when a phase names no modes (apps/api/src/bench-lab/phases);
 * `trino`: Trino can run queries, so it is offered (a phase that already asks for it shows it anyway)
 */
function ModePicks({
  modes,
  fallback,
  trino,
  onChange,
}: {
  modes: Mode[] | undefined;
  fallback: Mode[];
  trino: boolean;
  onChange(v: Mode[]): void;
}) {
  const on = new Set<Mode>(modes ?? fallback);
  const offered = (Object.keys(MODE_NAME) as Mode[]).filter((m) => m !== 'trino' || trino || on.has(m));
  return (
    <fieldset className="j-picks">
      <legend>Run</legend>
      {offered.map((m) => (
        <label key={m} className="j-check">
          <input
            type="checkbox"
            checked={on.has(m)}
            onChange={(e) => {
              const next = (Object.keys(MODE_NAME) as Mode[]).filter((x) => (x === m ? e.target.checked : on.has(x)));
              if (next.length) onChange(next);
            }}
          />
          <span>{MODE_NAME[m]}</span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The phases a run goes through, each with its settings, in order: edit, remove, add. Modes a
 * query cannot run in (direct without a direct target) are skipped by the runner.
 */
export function PhaseEditor({
  phases,
  queries,
  trino = false,
  onChange,
}: {
  phases: Phase[];
  queries: readonly string[];
  /** the server's Trino backend can run queries: the trino mode is offered */
  trino?: boolean;
  onChange(p: Phase[]): void;
}) {
  const [adding, setAdding] = useState<Phase['type']>('single');
  const set = (i: number, p: Phase) => onChange(phases.map((x, j) => (j === i ? p : x)));
  return (
    <div className="j-phases">
      {phases.map((p, i) => (
        // phases have no identity but their place; editing one never reorders them
        <section key={`${i}-${p.type}`} className="j-phase" aria-label={`Phase ${i + 1}`}>
          <div className="j-row">
            <strong>
              {i + 1}. {TYPE_NAME[p.type]}
            </strong>
            <input
              aria-label={`Phase ${i + 1} label`}
              className="j-grow"
              value={p.label ?? ''}
              placeholder="label (optional)"
              onChange={(e) => set(i, { ...p, label: e.target.value || undefined })}
            />
            <button type="button" onClick={() => onChange(phases.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
          <div className="j-form-grid">
            {p.type === 'single' && (
              <>
                <NumberField label="Warm-ups" value={p.warmups} onChange={(v) => set(i, { ...p, warmups: v ?? 0 })} />
                <NumberField
                  label="Repetitions"
                  min={1}
                  value={p.repetitions}
                  onChange={(v) => set(i, { ...p, repetitions: v ?? 1 })}
                />
                <QueryPicks all={queries} picked={p.queries} onChange={(v) => set(i, { ...p, queries: v })} />
                <ModePicks
                  modes={p.modes}
                  fallback={['direct', 'federated']}
                  trino={trino}
                  onChange={(v) => set(i, { ...p, modes: v })}
                />
              </>
            )}
            {p.type === 'concurrency' && (
              <>
                <label>
                  <span>Query</span>
                  <select aria-label="Query" value={p.query} onChange={(e) => set(i, { ...p, query: e.target.value })}>
                    {queries.map((q) => (
                      <option key={q}>{q}</option>
                    ))}
                  </select>
                </label>
                <label>
                  <span>Users per level</span>
                  <ListInput label="Users per level" value={p.users} onChange={(v) => set(i, { ...p, users: v })} />
                </label>
                <NumberField
                  label="Seconds per level"
                  step={0.5}
                  min={0.1}
                  value={p.stepSeconds}
                  onChange={(v) => set(i, { ...p, stepSeconds: v ?? 1 })}
                />
                <NumberField label="Think time (ms)" value={p.thinkMs} onChange={(v) => set(i, { ...p, thinkMs: v })} />
                <ModePicks
                  modes={p.modes}
                  fallback={['federated']}
                  trino={trino}
                  onChange={(v) => set(i, { ...p, modes: v })}
                />
              </>
            )}
            {p.type === 'mix' && (
              <>
                <NumberField label="Users" min={1} value={p.users} onChange={(v) => set(i, { ...p, users: v ?? 1 })} />
                <NumberField
                  label="Duration (s)"
                  min={0.1}
                  value={p.durationSeconds}
                  onChange={(v) => set(i, { ...p, durationSeconds: v ?? 1 })}
                />
                <NumberField
                  label="Interval (s)"
                  min={0.1}
                  step={0.5}
                  value={p.intervalSeconds}
                  onChange={(v) => set(i, { ...p, intervalSeconds: v ?? 1 })}
                />
                <NumberField label="Think time (ms)" value={p.thinkMs} onChange={(v) => set(i, { ...p, thinkMs: v })} />
                <QueryPicks all={queries} picked={p.queries} onChange={(v) => set(i, { ...p, queries: v })} />
              </>
            )}
            {p.type === 'streams' && (
              <>
                <NumberField label="Users" min={1} value={p.users} onChange={(v) => set(i, { ...p, users: v ?? 1 })} />
                <QueryPicks all={queries} picked={p.queries} onChange={(v) => set(i, { ...p, queries: v })} />
              </>
            )}
            {p.type === 'coldwarm' && (
              <>
                <NumberField
                  label="Warm passes"
                  min={1}
                  value={p.warmPasses}
                  onChange={(v) => set(i, { ...p, warmPasses: v ?? 1 })}
                />
                <QueryPicks all={queries} picked={p.queries} onChange={(v) => set(i, { ...p, queries: v })} />
              </>
            )}
          </div>
        </section>
      ))}
      <div className="j-row">
        <select aria-label="Phase to add" value={adding} onChange={(e) => setAdding(e.target.value as Phase['type'])}>
          {(Object.keys(TYPE_NAME) as Phase['type'][]).map((t) => (
            <option key={t} value={t}>
              {TYPE_NAME[t]}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => onChange([...phases, newPhase(adding, queries)])}>
          Add phase
        </button>
      </div>
    </div>
  );
}
