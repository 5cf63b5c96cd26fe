import { flattenPlan, type PlanNode } from '../../lib/plan.js';

export function PlanView({ plan, analyze }: { plan: PlanNode; analyze: boolean }) {
  const rows = flattenPlan(plan);
  return (
    <ol className="plan" data-testid="plan" aria-label={analyze ? 'Explain analyze plan' : 'Explain plan'}>
      {rows.map((r) => (
        <li key={r.id} className={`plan-node${r.isRemote ? ' remote' : ''}`} style={{ marginLeft: r.depth * 20 }} data-runs-in={r.runsIn}>
          <div className="plan-head">
            <strong className="plan-op">{r.operator}</strong>
            <span className={`badge${r.isRemote ? ' source' : ''}`}>{r.runsIn}</span>
            {r.joinStrategy && <span className="badge join">join: {r.joinStrategy}</span>}
            {r.detail && <span className="plan-detail">{r.detail}</span>}
            <span className="spacer" />
            <span className="muted">{r.rows}</span>
            {r.time && <span className="muted">{r.time}</span>}
          </div>
          {r.sql && (
            <pre className="plan-sql" data-testid={`plan-sql-${r.runsIn}`}>
              {r.sql}
            </pre>
          )}
          {r.params && <div className="plan-params">params: {r.params}</div>}
          {r.notPushed.length > 0 && (
            <ul className="not-pushed">
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
