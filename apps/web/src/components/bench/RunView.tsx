import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { benchApi, type Mode, type Run } from '../../lib/bench-api.js';
import { duration, ms, ratio, STATUS_LABEL } from '../../lib/bench-format.js';
import {
  coldWarmChart,
  geomeanChart,
  MODE_LABEL,
  percentilesOverTime,
  perQueryBars,
  resourcesChart,
  usersChart,
} from '../../lib/charts/options.js';

const Chart = lazy(() => import('../../lib/charts/Chart.js').then((m) => ({ default: m.Chart })));

const MODES: Mode[] = ['direct', 'pushdown', 'federated'];

/** One run: live progress while it runs (polled), then its answers, timings and charts. */
export function RunView({ runId }: { runId: string }) {
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<string>();
  const [log, setLog] = useState(true);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      benchApi.run(runId).then(
        (r) => {
          if (!live) return;
          setRun(r);
          if (r.status === 'queued' || r.status === 'running') timer = setTimeout(poll, 1000);
        },
        (e: Error) => live && setError(e.message),
      );
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [runId]);

  const results = run?.results;
  const phases = useMemo(() => {
    const seen = new Map<number, { phase: string; type: string }>();
    for (const e of results?.queries ?? []) if (!seen.has(e.phaseIndex)) seen.set(e.phaseIndex, e);
    return [...seen.entries()].sort((a, b) => a[0] - b[0]);
  }, [results]);

  if (error) return <p className="j-error">{error}</p>;
  if (!run || !results) return <p className="j-muted">Loading the run…</p>;
  const active = run.status === 'queued' || run.status === 'running';
  const p = run.progress;
  const answers = Object.entries(results.answers ?? {});
  const wrong = answers.filter(([, a]) => a.equivalent === false).map(([q]) => q);

  return (
    <section className="j-bench-run" aria-label={`Run ${run.name}`}>
      <div className="j-row">
        <h2 className="j-flush">{run.name}</h2>
        <span className={`j-badge j-run-${run.status}`} data-testid="bench-run-status">
          {STATUS_LABEL[run.status]}
        </span>
        <span className="j-spacer" />
        {active && (
          <button
            type="button"
            className="j-danger"
            onClick={() => void benchApi.cancel(run.id).catch(() => undefined)}
          >
            Cancel run
          </button>
        )}
        {!active && (
          <>
            <a className="j-button" href={benchApi.exportUrl(run.id, 'json')} download>
              Export JSON
            </a>
            <a className="j-button" href={benchApi.exportUrl(run.id, 'csv')} download>
              Export CSV
            </a>
          </>
        )}
      </div>
      {p && (
        <div className="j-progress" data-testid="run-progress">
          <progress value={p.fraction} max={1} aria-label="Run progress" />
          <span>
            {active ? (
              <>
                {p.phase ?? 'Starting'}
                {p.step ? ` · ${p.step}` : ''} · {duration(p.elapsedMs)} ·{' '}
              </>
            ) : (
              <>Took {duration(p.elapsedMs)} · </>
            )}
            {p.executions.toLocaleString()} executions · {p.errors.toLocaleString()} errors
          </span>
          {p.error && <span className="j-error">{p.error}</span>}
        </div>
      )}
      {wrong.length > 0 && (
        <p className="j-error" role="alert">
          Wrong answers: {wrong.join(', ')} — Junction&apos;s rows differ from the direct ones. These queries count as
          failures, whatever their times.
        </p>
      )}

      {answers.length > 0 && (
        <details open={wrong.length > 0}>
          <summary>
            Answer checks: {answers.filter(([, a]) => a.equivalent === true).length} of {answers.length} queries give
            the same rows direct and through Junction
          </summary>
          <table className="j-table j-compact">
            <thead>
              <tr>
                <th>Query</th>
                <th>Direct rows</th>
                <th>Federated rows</th>
                <th>Checksums</th>
                <th>Answer</th>
              </tr>
            </thead>
            <tbody>
              {answers.map(([q, a]) => (
                <tr key={q}>
                  <td>{q}</td>
                  <td>{a.direct?.rows ?? '–'}</td>
                  <td>{a.federated?.rows ?? '–'}</td>
                  <td className="j-mono j-small">
                    {a.direct?.checksum ?? '–'} / {a.federated?.checksum ?? '–'}
                  </td>
                  <td>
                    {a.equivalent === true && <span className="j-ok">same</span>}
                    {a.equivalent === false && (
                      <span className="j-error">
                        differs
                        {a.sample && (
                          <span className="j-mono j-small">
                            {a.sample.onlyDirect.map((r) => ` only direct: ${r}`)}
                            {a.sample.onlyFederated.map((r) => ` only Junction: ${r}`)}
                          </span>
                        )}
                      </span>
                    )}
                    {a.equivalent === null && <span className="j-muted">{a.error ?? 'not compared'}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}

      {phases.map(([index, ph]) => {
        const entries = (results.queries ?? []).filter((e) => e.phaseIndex === index);
        const modes = MODES.filter((m) => entries.some((e) => e[m]));
        return (
          <div key={index} className="j-card" data-testid={`phase-${index}`}>
            <div className="j-row">
              <h3 className="j-subhead">{ph.phase}</h3>
              <span className="j-spacer" />
              {ph.type === 'single' && (
                <label className="j-check j-small">
                  <input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} /> log scale
                </label>
              )}
            </div>
            <table className="j-table j-compact">
              <thead>
                <tr>
                  <th>Query</th>
                  {modes.map((m) => (
                    <th key={m}>{MODE_LABEL[m]}: p50 / p95 / p99 / max (runs, errors)</th>
                  ))}
                  {modes.includes('direct') && modes.includes('federated') && <th>Federated ÷ direct</th>}
                  <th>Answer</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.query} className={e.failed ? 'j-failed' : undefined}>
                    <td>{e.query}</td>
                    {modes.map((m) => {
                      const s = e[m];
                      return (
                        <td key={m} className="j-num">
                          {s
                            ? `${ms(s.p50Ms)} / ${ms(s.p95Ms)} / ${ms(s.p99Ms)} / ${ms(s.maxMs)} (${s.executions}, ${s.errors})`
                            : '–'}
                        </td>
                      );
                    })}
                    {modes.includes('direct') && modes.includes('federated') && (
                      <td className="j-num">{ratio(e.federated, e.direct) ?? '–'}</td>
                    )}
                    <td>
                      {e.equivalent === true && <span className="j-ok">✓ same rows</span>}
                      {e.equivalent === false && <strong className="j-error">✗ wrong answer (failure)</strong>}
                      {e.equivalent === null && <span className="j-muted">not checked</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Suspense fallback={<p className="j-muted">Loading the chart…</p>}>
              {ph.type === 'single' && <Chart name={`per-query-${index}`} option={perQueryBars(results, index, log)} />}
              {ph.type === 'concurrency' && <Chart name={`users-${index}`} option={usersChart(results, index)} />}
              {(ph.type === 'concurrency' || ph.type === 'mix') && (
                <Chart name={`percentiles-${index}`} option={percentilesOverTime(results, index)} height={260} />
              )}
            </Suspense>
          </div>
        );
      })}

      <Suspense fallback={<p className="j-muted">Loading the charts…</p>}>
        {(results.streams?.length ?? 0) > 0 && (
          <div className="j-card">
            <Chart name="geomean" option={geomeanChart(results)} />
          </div>
        )}
        {(results.coldWarm?.length ?? 0) > 0 && (
          <div className="j-card">
            <Chart name="cold-warm" option={coldWarmChart(results)} />
          </div>
        )}
        {(results.samples?.length ?? 0) > 0 && (
          <div className="j-card">
            <Chart name="resources" option={resourcesChart(results)} />
          </div>
        )}
      </Suspense>

      {(results.errors?.length ?? 0) > 0 && (
        <details>
          <summary className="j-error">{results.errors!.length} errors recorded (first ones)</summary>
          <ul className="j-small j-mono">
            {results.errors!.slice(0, 20).map((e, i) => (
              <li key={i}>
                {e.t.toFixed(1)} s · {e.phase} · {e.query} {e.mode}: {e.code} — {e.message}
              </li>
            ))}
          </ul>
        </details>
      )}
      {results.environment && Object.keys(results.environment).length > 0 && (
        <details>
          <summary>Environment</summary>
          <pre className="j-mono j-small">{JSON.stringify(results.environment, null, 2)}</pre>
        </details>
      )}
    </section>
  );
}
