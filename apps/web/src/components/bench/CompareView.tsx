import { lazy, Suspense } from 'react';
import { benchApi } from '../../lib/bench-api.js';
import { ms, pct } from '../../lib/bench-format.js';
import { compareChart, MODE_LABEL } from '../../lib/charts/options.js';
import { useAsync } from '../../lib/use-async.js';

const Chart = lazy(() => import('../../lib/charts/Chart.js').then((m) => ({ default: m.Chart })));

/** Two runs side by side: p50 and p95 of each, the difference in percent, and the answers of each. */
export function CompareView({ a, b }: { a: string; b: string }) {
  const cmp = useAsync(() => benchApi.compare(a, b), [a, b]);
  if (cmp.error) return <p className="j-error">{cmp.error.message}</p>;
  if (!cmp.data) return <p className="j-muted">Loading the comparison…</p>;
  const c = cmp.data;
  return (
    <section className="j-bench-run" aria-label="Comparison">
      <h2 className="j-flush">
        Comparing “{c.a.name}” (A) with “{c.b.name}” (B)
      </h2>
      {c.geomean.a !== null && c.geomean.b !== null && (
        <p>
          Stream score (geometric mean): A {ms(c.geomean.a)}, B {ms(c.geomean.b)} ({pct(c.geomean.diffPct)})
        </p>
      )}
      <div className="j-card">
        <Suspense fallback={<p className="j-muted">Loading the chart…</p>}>
          <Chart name="compare" option={compareChart(c)} height={Math.max(240, 28 * c.queries.length + 100)} />
        </Suspense>
      </div>
      <table className="j-table j-compact" data-testid="compare-table">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Query</th>
            <th>Mode</th>
            <th>A p50</th>
            <th>B p50</th>
            <th>p50 B vs A</th>
            <th>A p95</th>
            <th>B p95</th>
            <th>p95 B vs A</th>
            <th>Answers</th>
          </tr>
        </thead>
        <tbody>
          {c.queries.map((q) => (
            <tr key={`${q.phase}-${q.query}-${q.mode}`}>
              <td>{q.phase}</td>
              <td>{q.query}</td>
              <td>{MODE_LABEL[q.mode]}</td>
              <td className="j-num">
                {ms(q.a?.p50Ms)}
                {q.partialA && (
                  <span className="j-muted j-small" title="A's phase ended early: of what it finished">
                    {' '}
                    partial
                  </span>
                )}
              </td>
              <td className="j-num">
                {ms(q.b?.p50Ms)}
                {q.partialB && (
                  <span className="j-muted j-small" title="B's phase ended early: of what it finished">
                    {' '}
                    partial
                  </span>
                )}
              </td>
              <td className="j-num">{pct(q.p50DiffPct)}</td>
              <td className="j-num">{ms(q.a?.p95Ms)}</td>
              <td className="j-num">{ms(q.b?.p95Ms)}</td>
              <td className="j-num">{pct(q.p95DiffPct)}</td>
              <td>
                {q.equivalentA === false || q.equivalentB === false ? (
                  <strong className="j-error">wrong answer</strong>
                ) : q.equivalentA && q.equivalentB ? (
                  <span className="j-ok">same rows</span>
                ) : (
                  <span className="j-muted">not checked</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
