import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { benchApi, MODES, type AnswerCheck, type Run } from '../../lib/bench-api.js';
import { duration, isActive, ms, ratio, STATUS_LABEL } from '../../lib/bench-format.js';
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


/** One run: live progress while it runs (polled), then its answers, timings and charts. */
export function RunView({ runId }: { runId: string }) {
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<string>();
  const [log, setLog] = useState(true);
  const [shareError, setShareError] = useState<string>();

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      benchApi.run(runId).then(
        (r) => {
          if (!live) return;
          setRun(r);
          if (isActive(r.status)) timer = setTimeout(poll, 1000);
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
  const active = isActive(run.status);
  const p = run.progress;
  const answers = Object.entries(results.answers ?? {});
  const trinoChecked = answers.some(([, a]) => a.trino);
  const wrong = answers.filter(([, a]) => a.equivalent === false).map(([q]) => q);
  const wrongOnTrino = answers.filter(([, a]) => a.trino?.equivalent === false).map(([q]) => q);

  return (
    <section className="j-bench-run" aria-label={`Run ${run.name}`}>
      <div className="j-row">
        <h2 className="j-flush">{run.name}</h2>
        <span className={`j-badge j-run-${run.status}`} data-testid="bench-run-status">
          {STATUS_LABEL[run.status] ?? run.status}
        </span>
        {run.imported && (
          <span className="j-badge" data-testid="bench-run-imported">
            imported
          </span>
        )}
        <span className="j-spacer" />
        {run.mayChange && (
          <label className="j-row j-small" title="Members of the role may read and export this run">
            Shared with
            <select
              aria-label="Share this run with a role"
              value={run.sharedRole ?? ''}
              onChange={(e) => {
                const role = e.target.value || null;
                setShareError(undefined);
                benchApi.share(run.id, role).then(
                  () => setRun({ ...run, sharedRole: role }),
                  (err: Error) => setShareError(err.message),
                );
              }}
            >
              <option value="">nobody (you and admins)</option>
              <option value="analyst">analysts</option>
              <option value="viewer">viewers</option>
              <option value="admin">admins</option>
            </select>
          </label>
        )}
        {active && run.mayChange && (
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
      {shareError && <p className="j-error">{shareError}</p>}
      {run.imported && (
        <p className="j-muted j-small">
          Imported {new Date(run.imported.at).toLocaleString()}
          {run.imported.from ? ` from run ${run.imported.from}` : ''}
          {run.imported.exportedAt ? `, exported ${new Date(run.imported.exportedAt).toLocaleString()}` : ''}: not run
          on this studio.
        </p>
      )}
      {run.status === 'failed' && p?.failure === 'answers' && (
        <p className="j-error" role="alert" data-testid="bench-run-failure">
          <strong>Failed: wrong answers.</strong> {p.error}
        </p>
      )}
      {run.status === 'interrupted' && (
        <p className="j-error" role="alert">
          <strong>Interrupted:</strong> the server stopped during the run. What it had measured up to a few seconds
          before is kept below; the phase it was in is marked partial.
        </p>
      )}
      {(results.warnings?.length ?? 0) > 0 && (
        <ul className="j-error" data-testid="bench-run-warnings">
          {results.warnings!.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
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
          {p.error && p.failure !== 'answers' && <span className="j-error">{p.error}</span>}
        </div>
      )}
      {wrong.length > 0 && p?.failure !== 'answers' && (
        <p className="j-error" role="alert">
          Wrong answers: {wrong.join(', ')} — Junction&apos;s rows differ from the direct ones. These queries count as
          failures, whatever their times.
        </p>
      )}
      {wrongOnTrino.length > 0 && p?.failure !== 'answers' && (
        <p className="j-error" role="alert">
          Wrong answers on Trino: {wrongOnTrino.join(', ')} — Trino&apos;s rows differ from the direct ones. These
          queries count as failures there, whatever their times.
        </p>
      )}

      {answers.length > 0 && (
        <details open={wrong.length > 0 || wrongOnTrino.length > 0}>
          <summary>
            Answer checks: {answers.filter(([, a]) => a.equivalent === true).length} of {answers.length} queries give
            the same rows direct and through Junction
            {trinoChecked &&
              `; ${answers.filter(([, a]) => a.trino?.equivalent === true).length} of ${
                answers.filter(([, a]) => a.trino).length
              } through Trino`}
          </summary>
          {/* checksums and differing rows are long: the table scrolls inside the card, not past it */}
          <div style={{ overflowX: 'auto', maxWidth: '100%' }} data-testid="answer-checks">
            <table className="j-table j-compact">
              <thead>
                <tr>
                  <th>Query</th>
                  <th>Parameters checked</th>
                  <th>Rows compared</th>
                  <th>Direct rows</th>
                  <th>Federated rows</th>
                  <th>Checksums</th>
                  <th>Answer</th>
                  {trinoChecked && <th>Through Trino</th>}
                </tr>
              </thead>
              <tbody>
                {answers.map(([q, a]) => (
                  <tr key={q}>
                    <td>{q}</td>
                    <td className="j-small">
                      {a.checks?.some((c) => c.params.length)
                        ? a.checks.map((c) => c.params.join(', ')).join(' · ')
                        : a.params?.length
                          ? a.params.join(', ')
                          : '–'}
                    </td>
                    <td className="j-num">{a.rowsCompared ?? '–'}</td>
                    <td className="j-num">{a.direct?.rows ?? '–'}</td>
                    <td className="j-num">{a.federated?.rows ?? '–'}</td>
                    <td className="j-mono j-small" style={{ whiteSpace: 'nowrap' }}>
                      {a.direct?.checksum ?? '–'} / {a.federated?.checksum ?? '–'}
                    </td>
                    <td style={{ overflowWrap: 'anywhere', whiteSpace: 'normal', minWidth: '16ch', maxWidth: '60ch' }}>
                      {a.equivalent === true && a.rowsCompared !== 0 && <span className="j-ok">same</span>}
                      {a.equivalent === true && a.rowsCompared === 0 && (
                        <span className="j-error">same, but 0 rows: proves nothing</span>
                      )}
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
                    {trinoChecked && <TrinoAnswer check={a.trino} />}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}

      {phases.map(([index, ph]) => {
        const entries = (results.queries ?? []).filter((e) => e.phaseIndex === index);
        const modes = MODES.filter((m) => entries.some((e) => e[m]));
        const partial = entries.some((e) => e.partial);
        return (
          <div key={index} className="j-card" data-testid={`phase-${index}`}>
            <div className="j-row">
              <h3 className="j-subhead">{ph.phase}</h3>
              {partial && (
                <span
                  className="j-badge j-small"
                  title="The run ended during this phase: these are the executions that finished"
                >
                  partial
                </span>
              )}
              <span className="j-spacer" />
              {(ph.type === 'single' || ph.type === 'coldwarm') && (
                <label className="j-check j-small">
                  <input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} /> log scale
                </label>
              )}
            </div>
            <div style={{ overflowX: 'auto', maxWidth: '100%' }}>
              <table className="j-table j-compact">
                <thead>
                  <tr>
                    <th>Query</th>
                    {modes.map((m) => (
                      <th key={m}>{MODE_LABEL[m]}: p50 / p95 / p99 / max (runs, errors)</th>
                    ))}
                    {modes.includes('direct') && modes.includes('federated') && <th>Federated ÷ direct</th>}
                    {modes.includes('direct') && modes.includes('trino') && <th>Trino ÷ direct</th>}
                    {modes.includes('federated') && modes.includes('trino') && <th>Trino ÷ federated</th>}
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
                      {modes.includes('direct') && modes.includes('trino') && (
                        <td className="j-num">{ratio(e.trino ?? null, e.direct) ?? '–'}</td>
                      )}
                      {modes.includes('federated') && modes.includes('trino') && (
                        <td className="j-num">{ratio(e.trino ?? null, e.federated) ?? '–'}</td>
                      )}
                      <td>
                        {e.equivalent === true && <span className="j-ok">✓ same rows</span>}
                        {e.equivalent === false && <strong className="j-error">✗ wrong answer (failure)</strong>}
                        {e.equivalent === null && <span className="j-muted">not checked</span>}
                        {e.trinoEquivalent === false && (
                          <strong className="j-error"> · ✗ wrong answer on Trino (failure)</strong>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Suspense fallback={<p className="j-muted">Loading the chart…</p>}>
              {ph.type === 'single' && <Chart name={`per-query-${index}`} option={perQueryBars(results, index, log)} />}
              {ph.type === 'coldwarm' && (
                <Chart name={`cold-warm-${index}`} option={coldWarmChart(results, index, log)} />
              )}
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

/** Trino's rows against the direct ones, beside Junction's check of the same query. */
function TrinoAnswer({ check }: { check: AnswerCheck['trino'] }) {
  return (
    <td style={{ overflowWrap: 'anywhere', whiteSpace: 'normal', minWidth: '16ch', maxWidth: '60ch' }}>
      {!check && <span className="j-muted">not run there</span>}
      {check?.equivalent === true && (
        <span className="j-ok">
          same{check.digest ? ` (${check.digest.rows.toLocaleString('en-US')} rows)` : ''}
        </span>
      )}
      {check?.equivalent === false && (
        <span className="j-error">
          differs
          {check.sample && (
            <span className="j-mono j-small">
              {check.sample.onlyDirect.map((r) => ` only direct: ${r}`)}
              {check.sample.onlyEngine.map((r) => ` only Trino: ${r}`)}
            </span>
          )}
        </span>
      )}
      {check?.equivalent === null && <span className="j-muted">{check.error ?? 'not compared'}</span>}
    </td>
  );
}
