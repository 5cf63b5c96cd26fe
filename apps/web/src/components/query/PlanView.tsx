import { flattenPlan, type PlanNode } from '../../lib/plan.js';

export function PlanView({ plan, analyze }: { plan: PlanNode; analyze: boolean }) {
  const rows = flattenPlan(plan);
  return (
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
  );
}
