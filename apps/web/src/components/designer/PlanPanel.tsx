import { useEffect, useState } from 'react';
import { api, type ExplainResponse } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { summarizePlan } from '../../lib/view-graph/plan-parts.js';
import { ErrorBox } from '../query/ErrorBox.js';
import { planNotes } from '../../lib/plan.js';
import { PlanNotes, PlanView } from '../query/PlanView.js';

/** Where each part of the view runs: the SQL each source gets, what Junction does itself, and why. */
export function PlanPanel({ sql }: { sql: string }) {
  const [state, setState] = useState<{ sql: string; data?: ExplainResponse; error?: ApiError }>();
  useEffect(() => {
    if (sql.trim() === '') return;
    let live = true;
    const t = setTimeout(() => {
      api.explain(sql, false).then(
        (data) => live && setState({ sql, data }),
        (e: unknown) =>
          live &&
          setState({ sql, error: e instanceof ApiError ? e : new ApiError(0, 'internal', 'CLIENT', String(e)) }),
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [sql]);
  if (sql.trim() === '') return <p className="j-muted j-pad">The plan appears once the canvas has a table.</p>;
  if (!state || state.sql !== sql) return <p className="j-muted j-pad">Planning…</p>;
  if (state.error) return <ErrorBox error={state.error} />;
  const s = summarizePlan(state.data!.plan);
  return (
    <div className="j-dplan" data-testid="designer-plan">
      <div className="j-dplan-summary">
        <PlanNotes notes={planNotes(state.data!.text, state.data!.plan)} />
        {s.parts.map((p, i) => (
          <div key={i} className="j-dplan-part">
            <span className="j-badge source">runs in {p.source}</span>
            <pre className="j-plan-sql" data-testid={`designer-plan-sql-${p.source}`}>
              {p.sql}
            </pre>
          </div>
        ))}
        <div className="j-dplan-part">
          <span className="j-badge">Junction</span>{' '}
          <span className="j-small">{s.local.length > 0 ? s.local.join(' → ') : 'only passes the rows on'}</span>
        </div>
        {s.notPushed.length > 0 && (
          <ul className="j-not-pushed">
            {s.notPushed.map((n, i) => (
              <li key={i}>not pushed down — {n}</li>
            ))}
          </ul>
        )}
      </div>
      <details>
        <summary className="j-small">Full plan</summary>
        <PlanView plan={state.data!.plan} text={state.data!.text} analyze={false} />
      </details>
    </div>
  );
}
