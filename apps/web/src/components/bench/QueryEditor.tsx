import type { BenchQuery, ParamGen } from '../../lib/bench-api.js';
import type { Source } from '../../lib/api.js';

function newParam(kind: ParamGen['kind']): ParamGen {
  switch (kind) {
    case 'uniform':
      return { kind, min: 1, max: 100 };
    case 'list':
      return { kind, values: [1] };
    case 'sequence':
      return { kind, start: 1, step: 1 };
  }
}

/** A list's text: numbers stay numbers, anything else is a string. */
function parseValues(text: string): (string | number)[] {
  return text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => (/^-?\d+(\.\d+)?$/.test(x) ? Number(x) : x));
}

function ParamRow({
  n,
  p,
  onChange,
  onRemove,
}: {
  n: number;
  p: ParamGen;
  onChange(p: ParamGen): void;
  onRemove(): void;
}) {
  const num = (v: string) => (v === '' ? 0 : Number(v));
  return (
    <div className="j-row" role="group" aria-label={`Parameter $${n}`}>
      <code>${n}</code>
      <select
        aria-label={`$${n} generator`}
        value={p.kind}
        onChange={(e) => onChange(newParam(e.target.value as ParamGen['kind']))}
      >
        <option value="uniform">uniform integer</option>
        <option value="list">one of a list</option>
        <option value="sequence">sequence</option>
      </select>
      {p.kind === 'uniform' && (
        <>
          <input
            aria-label={`$${n} min`}
            type="number"
            value={p.min}
            onChange={(e) => onChange({ ...p, min: num(e.target.value) })}
          />
          …
          <input
            aria-label={`$${n} max`}
            type="number"
            value={p.max}
            onChange={(e) => onChange({ ...p, max: num(e.target.value) })}
          />
        </>
      )}
      {p.kind === 'list' && (
        <input
          aria-label={`$${n} values`}
          className="j-grow"
          defaultValue={p.values.join(', ')}
          onChange={(e) => {
            const values = parseValues(e.target.value);
            if (values.length) onChange({ ...p, values });
          }}
        />
      )}
      {p.kind === 'sequence' && (
        <>
          from
          <input
            aria-label={`$${n} start`}
            type="number"
            value={p.start}
            onChange={(e) => onChange({ ...p, start: num(e.target.value) })}
          />
          step
          <input
            aria-label={`$${n} step`}
            type="number"
            value={p.step ?? 1}
            onChange={(e) => onChange({ ...p, step: num(e.target.value) })}
          />
        </>
      )}
      <button type="button" onClick={onRemove} aria-label={`Remove $${n}`}>
        ✕
      </button>
    </div>
  );
}

/** The next free query id: Q1, Q2, … */
export function nextQueryId(queries: readonly BenchQuery[]): string {
  for (let i = 1; ; i++) if (!queries.some((q) => q.id === `Q${i}`)) return `Q${i}`;
}

/**
 * A benchmark's own queries: each with its SQL through Junction, optionally a direct target
 * (a registered source and SQL in its own dialect) whose answer is checked against Junction's,
 * generators for its $1, $2… (a fresh value per execution) and a weight for mixes.
 */
export function QueryEditor({
  queries,
  sources,
  onChange,
}: {
  queries: BenchQuery[];
  sources: readonly Source[];
  onChange(q: BenchQuery[]): void;
}) {
  const set = (i: number, q: BenchQuery) => onChange(queries.map((x, j) => (j === i ? q : x)));
  return (
    <div className="j-phases">
      {queries.map((q, i) => (
        <section key={i} className="j-phase" aria-label={`Query ${q.id}`}>
          <div className="j-row">
            <label>
              <span>Id</span>
              <input
                aria-label="Query id"
                value={q.id}
                pattern="[A-Za-z0-9_\-]+"
                maxLength={40}
                onChange={(e) => set(i, { ...q, id: e.target.value })}
              />
            </label>
            <label>
              <span>Weight</span>
              <input
                aria-label="Weight"
                type="number"
                min={0}
                value={q.weight ?? ''}
                placeholder="1"
                onChange={(e) => set(i, { ...q, weight: e.target.value === '' ? undefined : Number(e.target.value) })}
              />
            </label>
            <span className="j-spacer" />
            <button type="button" onClick={() => onChange(queries.filter((_, j) => j !== i))}>
              Remove query
            </button>
          </div>
          <label className="j-block">
            <span>SQL through Junction</span>
            <textarea
              aria-label="SQL through Junction"
              rows={3}
              spellCheck={false}
              value={q.federated}
              onChange={(e) => set(i, { ...q, federated: e.target.value })}
            />
          </label>
          <div className="j-row">
            <label>
              <span>Direct target</span>
              <select
                aria-label="Direct source"
                value={q.direct?.source ?? ''}
                onChange={(e) =>
                  set(i, {
                    ...q,
                    direct: e.target.value ? { source: e.target.value, sql: q.direct?.sql ?? q.federated } : undefined,
                  })
                }
              >
                <option value="">— none —</option>
                {sources.map((s) => (
                  <option key={s.id} value={s.name}>
                    {s.name} ({s.engine})
                  </option>
                ))}
              </select>
            </label>
          </div>
          {q.direct && (
            <label className="j-block">
              <span>Direct SQL, in {q.direct.source}'s own dialect</span>
              <textarea
                aria-label="Direct SQL"
                rows={3}
                spellCheck={false}
                value={q.direct.sql}
                onChange={(e) => set(i, { ...q, direct: { source: q.direct!.source, sql: e.target.value } })}
              />
              <span className="j-muted j-small">
                Runs read-only, and needs the admin role or a native grant on {q.direct.source}.
              </span>
            </label>
          )}
          {(q.params ?? []).map((p, n) => (
            <ParamRow
              key={n}
              n={n + 1}
              p={p}
              onChange={(np) => set(i, { ...q, params: q.params!.map((x, k) => (k === n ? np : x)) })}
              onRemove={() => set(i, { ...q, params: q.params!.filter((_, k) => k !== n) })}
            />
          ))}
          <div className="j-row">
            <button type="button" onClick={() => set(i, { ...q, params: [...(q.params ?? []), newParam('uniform')] })}>
              Add parameter ${(q.params?.length ?? 0) + 1}
            </button>
          </div>
        </section>
      ))}
      <div className="j-row">
        <button type="button" onClick={() => onChange([...queries, { id: nextQueryId(queries), federated: '' }])}>
          Add query
        </button>
      </div>
    </div>
  );
}
