import { useEffect, useState } from 'react';
import type { User } from '../../lib/api.js';
import { benchApi, type RunSummary } from '../../lib/bench-api.js';
import { duration, isActive, ms, STATUS_LABEL } from '../../lib/bench-format.js';
import { errorFor, parseBenchHash, type ViewError } from '../../lib/bench-view.js';
import { useHash } from '../../lib/route.js';
import { CompareView } from './CompareView.js';
import { NewBenchmark } from './NewBenchmark.js';
import { RunView } from './RunView.js';

export function BenchmarksPage({ user }: { user: User }) {
  const hash = useHash();
  const view = parseBenchHash(hash);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [picked, setPicked] = useState<string[]>([]);
  // an error belongs to the view it happened in: another view does not show it
  const [viewError, setViewError] = useState<ViewError>();
  const error = errorFor(viewError, hash);
  const setError = (message: string | undefined) => setViewError(message === undefined ? undefined : { hash, message });
  const canRun = user.role !== 'viewer';

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      benchApi.runs().then(
        (r) => {
          if (!live) return;
          setRuns(r);
          // the list follows running runs; finished lists need no polling
          if (r.some((x) => isActive(x.status))) timer = setTimeout(poll, 2000);
        },
        (e: Error) => live && setViewError({ hash, message: e.message }),
      );
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [hash]);

  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));

  return (
    <main className="j-page">
      <div className="j-row">
        <h1>Benchmarks</h1>
        <span className="j-muted">Direct against your sources vs through Junction, stored and charted.</span>
        <span className="j-spacer" />
        {(view.run || view.compare) && <a href="#/benchmarks">← All runs</a>}
      </div>
      {error && <p className="j-error">{error}</p>}
      {view.run && <RunView runId={view.run} />}
      {view.compare && <CompareView a={view.compare[0]} b={view.compare[1]} />}
      {!view.run && !view.compare && (
        <>
          {canRun && <NewBenchmark user={user} onStarted={(id) => (location.hash = `#/benchmarks/run/${id}`)} />}
          <section className="j-card" aria-label="Runs">
            <div className="j-row">
              <h2 className="j-flush">Runs</h2>
              <span className="j-muted j-small">Tick two runs to compare them.</span>
              <span className="j-spacer" />
              {canRun && (
                <label className="j-button" title="A run exported as JSON from this or another studio">
                  Import a run (JSON)
                  <input
                    type="file"
                    accept="application/json,.json"
                    hidden
                    aria-label="Import a run (JSON)"
                    onChange={(e) => {
                      const file = e.target.files?.[0];
                      e.target.value = '';
                      if (!file) return;
                      setError(undefined);
                      file
                        .text()
                        .then((text) => benchApi.importRun(JSON.parse(text)))
                        .then(
                          ({ runId }) => (location.hash = `#/benchmarks/run/${runId}`),
                          (err: Error) => setError(`Could not import ${file.name}: ${err.message}`),
                        );
                    }}
                  />
                </label>
              )}
              <button
                type="button"
                disabled={picked.length !== 2}
                onClick={() => (location.hash = `#/benchmarks/compare/${picked[0]}/${picked[1]}`)}
              >
                Compare the two ticked runs
              </button>
            </div>
            <table className="j-table j-compact" data-testid="runs-table">
              <thead>
                <tr>
                  <th />
                  <th>Run</th>
                  <th>Status</th>
                  <th>Started</th>
                  <th>Took</th>
                  <th>Executions</th>
                  <th>Errors</th>
                  <th>Answers</th>
                  <th>Stream score</th>
                  <th>Shared</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Pick ${r.name} for comparison`}
                        checked={picked.includes(r.id)}
                        onChange={() => toggle(r.id)}
                      />
                    </td>
                    <td>
                      <a href={`#/benchmarks/run/${r.id}`}>{r.name}</a>
                      {r.imported && (
                        <span className="j-badge j-small" title="Imported from an exported run, not run here">
                          {' '}
                          imported
                        </span>
                      )}
                    </td>
                    <td>
                      <span className={`j-badge j-run-${r.status}`}>{STATUS_LABEL[r.status]}</span>
                    </td>
                    <td>{new Date(r.startedAt ?? r.createdAt).toLocaleString()}</td>
                    <td>
                      {r.startedAt && r.finishedAt
                        ? duration(new Date(r.finishedAt).getTime() - new Date(r.startedAt).getTime())
                        : '–'}
                    </td>
                    <td className="j-num">{r.summary?.executions?.toLocaleString() ?? '–'}</td>
                    <td className="j-num">{r.summary?.errors?.toLocaleString() ?? '–'}</td>
                    <td>
                      {r.summary ? (
                        r.summary.mismatches?.length ? (
                          <strong className="j-error">wrong: {r.summary.mismatches.join(', ')}</strong>
                        ) : (
                          <span className="j-ok">all checked same</span>
                        )
                      ) : (
                        '–'
                      )}
                    </td>
                    <td className="j-num">{r.summary?.geomeanMs ? ms(r.summary.geomeanMs) : '–'}</td>
                    <td className="j-small">
                      {r.mine
                        ? r.sharedRole
                          ? `yours, with ${r.sharedRole}s`
                          : 'yours'
                        : r.sharedRole
                          ? `with ${r.sharedRole}s`
                          : "another user's"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {runs.length === 0 && <p className="j-muted">No runs yet.</p>}
          </section>
        </>
      )}
    </main>
  );
}
