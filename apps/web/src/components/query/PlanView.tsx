import { flattenPlan, type PlanNode } from '../../lib/plan.js';

/** `text` is the server's own EXPLAIN text, the same the CLI and golden files print. */
export function PlanView({ plan, text, analyze }: { plan: PlanNode; text: string; analyze: boolean }) {
  const rows = flattenPlan(plan);
  return (
    <>
      <div className="j-plan-bar">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(text)}>
          Copy as text
        </button>
      </div>
      <ol className="j-plan" data-testid="plan" aria-label={analyze ? 'Explain analyze plan' : 'Explain plan'}>
        {rows.map((r) => (
          <li
            key={r.id}
            className={`j-plan-node${r.isRemote ? ' j-remote' : ''}`}
            style={{ marginLeft: r.depth * 20 }}
            data-runs-in={r.runsIn}
          >
            <div className="j-plan-head">
              <strong className="j-plan-op">{r.operator}</strong>
              <span className={`j-badge${r.isRemote ? ' j-source' : ''}`}>{r.runsIn}</span>
              {r.joinStrategy && <span className="j-badge j-join">join: {r.joinStrategy}</span>}
              {r.detail && <span className="j-plan-detail">{r.detail}</span>}
              <span className="j-spacer" />
              <span className="j-muted">{r.rows}</span>
              {r.time && <span className="j-muted">{r.time}</span>}
            </div>
            {r.sql && (
              <pre className="j-plan-sql" data-testid={`plan-sql-${r.runsIn}`}>
                {r.sql}
              </pre>
            )}
            {r.params && <div className="j-plan-params">params: {r.params}</div>}
            {r.notPushed.length > 0 && (
              <ul className="j-not-pushed">
                {r.notPushed.map((n, i) => (
                  <li key={i}>not pushed — {n}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}
